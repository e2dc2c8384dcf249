import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { childrenOf, killQuietly, processesOfUid, waitUntilUidIdle } from "./processes.ts";

const isRoot = process.getuid?.() === 0;

describe("process bookkeeping", () => {
  it("lists a process's children", { timeout: 10_000 }, async () => {
    const shell = spawn("/bin/sh", ["-c", "sleep 5 & sleep 5 & wait"], { stdio: "ignore" });
    await new Promise((done) => setTimeout(done, 200));
    const kids = await childrenOf(shell.pid!);
    expect(kids).toHaveLength(2);
    for (const kid of kids) killQuietly(kid);
    await new Promise((done) => shell.once("exit", done));
    expect(await childrenOf(shell.pid!)).toEqual([]);
  });

  it.runIf(isRoot)("finds and kills every process of a uid", { timeout: 10_000 }, async () => {
    const args = ["--reuid=61480", "--regid=61480", "--clear-groups", "/bin/sh", "-c", "sleep 30 & sleep 30"];
    const child = spawn("/usr/bin/setpriv", args, { stdio: "ignore" });
    await new Promise((done) => setTimeout(done, 200));
    const found = processesOfUid(61480);
    expect(found).toContain(child.pid);
    expect(found.length).toBe(3);
    await waitUntilUidIdle(61480);
    expect(processesOfUid(61480)).toEqual([]);
  });

  it("never signals process groups or everything", () => {
    expect(() => killQuietly(0)).not.toThrow();
    expect(() => killQuietly(-1)).not.toThrow();
    expect(() => killQuietly(1)).not.toThrow();
  });
});
