import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { SandboxError } from "../errors.ts";
import { sleep, waitUntilUidIdle } from "./processes.ts";

export interface UidLease {
  readonly uid: number;
  /** Waits until no process of the uid remains, then frees it for the next run. */
  release(): Promise<void>;
}

export interface UidRange {
  /** First uid of the pool (61000 by default: above Debian's dynamic and system ranges, below nobody). */
  base: number;
  /** Number of uids, i.e. the most runs that can be in flight on this host at once. */
  size: number;
}

export const defaultUidRange: Readonly<UidRange> = Object.freeze({ base: 61000, size: 64 });

/**
 * Dedicated host uids, one per concurrent run, shared by every gagar process on the host.
 *
 * A lease is an abstract-namespace UNIX socket named after the uid: binding it is atomic and exclusive,
 * and the kernel frees it when the holder dies, so a crashed verifier never leaves a stale lock (which
 * lock files would). Sandboxes have their own network namespace, so they cannot squat the names.
 */
/** How long a uid whose processes would not die is skipped. */
const STUCK_PAUSE_MS = 60_000;

export class UidPool {
  private readonly stuck = new Map<number, number>();
  constructor(readonly range: UidRange = defaultUidRange) {
    if (
      !Number.isSafeInteger(range.base) ||
      range.base < 1000 ||
      !Number.isSafeInteger(range.size) ||
      range.size < 1
    ) {
      throw new SandboxError(
        `bad uid range ${range.base}+${range.size}: base must be >= 1000, size >= 1`,
        false,
      );
    }
  }

  /** Uids of the pool that are also accounts in /etc/passwd (which the pool would kill processes of). */
  clashingAccounts(passwd = readPasswd()): string[] {
    const { base, size } = this.range;
    return passwd
      .split("\n")
      .map((line) => line.split(":"))
      .filter((fields) => fields.length > 3 && Number(fields[2]) >= base && Number(fields[2]) < base + size)
      .map((fields) => `${fields[0]} (uid ${fields[2]})`);
  }

  /**
   * Takes a free uid, waiting up to `timeoutMs` when all are leased. Before returning it makes sure no
   * process of the uid is left from an earlier holder (the kill lag of a timed-out run).
   */
  async acquire(timeoutMs = 120_000): Promise<UidLease> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let i = 0; i < this.range.size; i++) {
        // Lowest free uid first: a session then cycles through as few uids as it runs at once, and
        // per-uid state (the workspace views of idmapped-lowers.ts) is reused instead of rebuilt.
        const uid = this.range.base + i;
        if (Date.now() - (this.stuck.get(uid) ?? Number.NEGATIVE_INFINITY) < STUCK_PAUSE_MS) continue;
        const server = await tryLease(uid);
        if (!server) continue;
        try {
          await waitUntilUidIdle(uid);
        } catch (error) {
          server.close();
          if (!(error instanceof SandboxError && error.retryable)) throw error;
          // Processes of this uid that will not die (another session's, a kernel hang): with lowest-first
          // allocation every run would wait on it again, so it sits out a while.
          this.stuck.set(uid, Date.now());
          continue;
        }
        return lease(uid, server);
      }
      if (Date.now() > deadline) {
        throw new SandboxError(`all ${this.range.size} sandbox uids stayed busy for ${timeoutMs} ms`, true);
      }
      await sleep(25);
    }
  }
}

function lease(uid: number, server: Server): UidLease {
  let released = false;
  return {
    uid,
    async release() {
      if (released) return;
      released = true;
      try {
        await waitUntilUidIdle(uid);
      } finally {
        server.close();
      }
    },
  };
}

function tryLease(uid: number): Promise<Server | undefined> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(undefined));
    server.listen({ path: `\0gagar-sandbox-uid-${uid}`, exclusive: true }, () => {
      server.unref();
      done(server);
    });
  });
}

function readPasswd(): string {
  try {
    return readFileSync("/etc/passwd", "utf8");
  } catch {
    return "";
  }
}
