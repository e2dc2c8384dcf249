import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const PREFIX = "gagar-sandbox-";
const swept = new Set<string>();

/**
 * A per-run private directory for the curated /etc, the mount table and the mount points the sandbox
 * is staged on. It is root-owned and 0711: the run's uid must traverse it (bwrap resolves bind sources
 * as that uid) but cannot list it. Sources in 0700 directories (mkdtemp's default) are bound onto these
 * mount points inside a private mount namespace, so their real host paths never need to be reachable.
 * The name carries the owner's pid, so that directories of a verifier that was killed (and never ran
 * its cleanup) are removed by the next one.
 */
export async function makeRunDir(base: string): Promise<string> {
  if (!swept.has(base)) {
    swept.add(base);
    await sweepStaleRunDirs(base);
  }
  // Synchronous: two calls that take microseconds inline, and a thread-pool round trip each otherwise.
  const dir = mkdtempSync(join(base, `${PREFIX}${process.pid}-`));
  chmodSync(dir, 0o711);
  return dir;
}

/** Removes run directories whose owning process is gone. */
export async function sweepStaleRunDirs(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (owner && !isAlive(Number(owner))) await removeRunDir(join(base, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes a run directory, unless something is still mounted below it in this mount namespace (which
 * the private namespaces should make impossible): a recursive delete through a live bind of the
 * workspace would destroy the workspace, so it is left in place and reported instead.
 */
export async function removeRunDir(dir: string): Promise<void> {
  let mountinfo = "";
  try {
    mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    // no /proc: nothing to check against
  }
  const mountPoints = mountinfo.split("\n").map((line) => line.split(" ")[4] ?? "");
  if (mountPoints.some((point) => point === dir || point.startsWith(`${dir}/`))) {
    process.stderr.write(`gagar: not removing ${dir}: something is still mounted below it\n`);
    return;
  }
  // A run directory holds a dozen small entries: removed inline in well under a millisecond.
  rmSync(dir, { recursive: true, force: true });
}
