import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { SandboxError } from "../errors.ts";

/**
 * Process bookkeeping through /proc. Sandboxes run as dedicated uids, so "every process of the run uid
 * is gone" is the precise, race-free meaning of "the run is over": zombies still count against
 * RLIMIT_NPROC of that uid, and a leftover daemon could tamper with the next run's files.
 */

/**
 * Pids of every process whose real, effective, saved or filesystem uid is `uid` (zombies included).
 * Synchronous on purpose: /proc files are generated in memory, so a hundred tiny reads inline cost
 * far less than a trip each through the libuv thread pool; every run scans twice.
 */
export function processesOfUid(uid: number): number[] {
  const owned: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const match = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
    if (match?.slice(1).some((id) => Number(id) === uid)) owned.push(Number(name));
  }
  return owned;
}

/** Direct children of a process (from /proc/PID/task/PID/children); empty when it is gone. */
export async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  return text
    .split(/\s+/)
    .filter((t) => t !== "")
    .map(Number);
}

/** Sends SIGKILL, ignoring processes that are already gone. */
export function killQuietly(pid: number): void {
  // 0 and negative pids address process groups or everything: never meant here.
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * Waits until no process of `uid` remains, SIGKILLing any that are still running (the caller holds the
 * uid's lease, so every such process is a leftover). Zombies cannot be killed, only waited for: the
 * host's init reaps orphans about 1 s late here. Retryable SandboxError when the uid stays busy.
 */
export async function waitUntilUidIdle(uid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    const pids = processesOfUid(uid);
    if (pids.length === 0) return;
    if (Date.now() > deadline) {
      throw new SandboxError(`uid ${uid} still has processes ${pids.join(", ")} after ${timeoutMs} ms`, true);
    }
    for (const pid of pids) killQuietly(pid);
    await sleep(delay);
    delay = Math.min(delay * 2, 100);
  }
}
