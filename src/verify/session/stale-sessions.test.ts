import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claimSession, mountsBelow, SESSION_PREFIX, sweepStaleSessions } from "./stale-sessions.ts";

const tmp = mkdtempSync(join(tmpdir(), "gagar-stale-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync("true").pid!;
}

describe("sweepStaleSessions", () => {
  it("unmounts and removes sessions whose process is gone, and only those", async () => {
    const dead = join(tmp, `${SESSION_PREFIX}dead`);
    mkdirSync(join(dead, "runs", "ws-1", "fs"), { recursive: true });
    writeFileSync(join(dead, "owner.pid"), `${deadPid()}\n`);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "gagar-ws", join(dead, "runs", "ws-1", "fs")]);
    const live = join(tmp, `${SESSION_PREFIX}live`);
    mkdirSync(live);
    claimSession(live);
    const unknown = join(tmp, `${SESSION_PREFIX}unknown`);
    mkdirSync(unknown);

    expect(mountsBelow(dead)).toEqual([join(dead, "runs", "ws-1", "fs")]);
    expect(await sweepStaleSessions(tmp)).toEqual([dead]);
    expect(mountsBelow(dead)).toEqual([]);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unknown)).toBe(true);
  });
});
