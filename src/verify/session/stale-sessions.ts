import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unmount } from "../workspace/mounts.ts";

/**
 * Verifier sessions live in `<tmp>/gagar-verify-*` and mount a tmpfs and an overlay per candidate. A
 * session that is killed (SIGKILL, OOM, a crashed CI job) cannot unmount them, and they would stay in
 * the host's mount table. Each session records its pid; a new session sweeps the folders of sessions
 * whose process is gone: lazy-unmounts whatever is mounted below them (deepest first) and deletes them.
 */

export const SESSION_PREFIX = "gagar-verify-";
const OWNER = "owner.pid";

export function claimSession(root: string): void {
  writeFileSync(join(root, OWNER), `${process.pid}\n`, { mode: 0o600 });
}

/** Removes the leftovers of dead sessions under `tmp`; returns the folders removed. */
export async function sweepStaleSessions(tmp: string): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(SESSION_PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const root = join(tmp, name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(root, OWNER), "utf8").trim());
    } catch {
      continue;
    }
    if (!Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue;
    const mounts = mountsBelow(root);
    if (mounts.length) await unmount(...mounts);
    rmSync(root, { recursive: true, force: true });
    removed.push(root);
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Mount points at or below `root`, deepest first (from /proc/self/mountinfo, octal escapes decoded). */
export function mountsBelow(root: string): string[] {
  let info: string;
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  return info
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))))
    .filter((p) => p === root || p.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
}
