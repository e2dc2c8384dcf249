import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.ts";
import { processesOfUid } from "./processes.ts";
import { UidPool } from "./uid-pool.ts";

const isRoot = process.getuid?.() === 0;

describe("UidPool", () => {
  it("leases each uid to one holder at a time, across pools (as across processes)", async () => {
    const first = new UidPool({ base: 61470, size: 1 });
    const second = new UidPool({ base: 61470, size: 1 });
    const lease = await first.acquire();
    expect(lease.uid).toBe(61470);
    const blocked = second.acquire(300);
    await expect(blocked).rejects.toBeInstanceOf(SandboxError);
    await expect(blocked).rejects.toMatchObject({ retryable: true });
    await lease.release();
    const next = await second.acquire(1000);
    expect(next.uid).toBe(61470);
    await next.release();
  });

  it("hands out the lowest free uid, so that a session reuses as few as it runs at once", async () => {
    const pool = new UidPool({ base: 61480, size: 4 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect([a.uid, b.uid]).toEqual([61480, 61481]);
    await a.release();
    const c = await pool.acquire();
    expect(c.uid).toBe(61480);
    await Promise.all([b.release(), c.release()]);
  });

  it("hands out different uids to concurrent holders", async () => {
    const pool = new UidPool({ base: 61472, size: 3 });
    const leases = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire()]);
    expect(new Set(leases.map((l) => l.uid)).size).toBe(3);
    await Promise.all(leases.map((l) => l.release()));
  });

  it.runIf(isRoot)(
    "kills leftover processes of the uid before handing it out",
    { timeout: 10_000 },
    async () => {
      const leftover = spawn(
        "/usr/bin/setpriv",
        ["--reuid=61476", "--regid=61476", "--clear-groups", "/bin/sleep", "30"],
        {
          stdio: "ignore",
        },
      );
      await new Promise((done) => leftover.once("spawn", done));
      await new Promise((done) => setTimeout(done, 100));
      expect(processesOfUid(61476)).toContain(leftover.pid);
      const lease = await new UidPool({ base: 61476, size: 1 }).acquire();
      expect(processesOfUid(61476)).toEqual([]);
      await lease.release();
    },
  );

  it("finds /etc/passwd accounts inside its range", () => {
    const pool = new UidPool({ base: 61000, size: 64 });
    const passwd =
      "root:x:0:0::/root:/bin/sh\nci:x:61010:61010::/home/ci:/bin/sh\nlate:x:61064:61064::/:/bin/sh\n";
    expect(pool.clashingAccounts(passwd)).toEqual(["ci (uid 61010)"]);
  });

  it("rejects ranges that would include system uids", () => {
    expect(() => new UidPool({ base: 0, size: 10 })).toThrow(SandboxError);
    expect(() => new UidPool({ base: 61000, size: 0 })).toThrow(SandboxError);
  });
});
