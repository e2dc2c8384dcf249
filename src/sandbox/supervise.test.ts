import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.ts";
import { supervise, terminateNamespace } from "./supervise.ts";

const killChild = async (child: ChildProcess) => {
  child.kill("SIGKILL");
};
const base = { env: {}, detached: false, timeoutMs: 10_000, outputCapBytes: 1 << 20, terminate: killChild };

describe("supervise", () => {
  it("collects stdout, stderr and the status pipe on fd 3", async () => {
    const run = await supervise({
      ...base,
      file: "/bin/sh",
      args: ["-c", "echo out; echo err >&2; echo started >&3; exit 5"],
    });
    expect(run).toMatchObject({
      exitCode: 5,
      signal: null,
      stdout: "out\n",
      stderr: "err\n",
      status: "started\n",
    });
    expect(run.timedOut || run.outputCapped).toBe(false);
  });

  it("kills at the output cap and keeps exactly the cap", { timeout: 10_000 }, async () => {
    const run = await supervise({ ...base, file: "/usr/bin/yes", args: [], outputCapBytes: 10_000 });
    expect(run).toMatchObject({ outputCapped: true, signal: "SIGKILL" });
    expect(run.stdout.length).toBe(10_000);
  });

  it("kills at the wall timeout", { timeout: 10_000 }, async () => {
    const started = Date.now();
    const run = await supervise({ ...base, file: "/bin/sleep", args: ["30"], timeoutMs: 200 });
    expect(run.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("does not wait for pipes held open by an escaped process", { timeout: 10_000 }, async () => {
    const started = Date.now();
    const run = await supervise({
      ...base,
      file: "/bin/sh",
      args: ["-c", "sleep 3 & echo done"],
      detached: true,
    });
    expect(run.stdout).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(2500);
    process.kill(-run.pid!, "SIGKILL");
  });

  it("fails with a SandboxError when the program cannot be started", async () => {
    await expect(supervise({ ...base, file: "/nonexistent", args: [] })).rejects.toBeInstanceOf(SandboxError);
  });
});

describe("terminateNamespace", () => {
  it("kills the chain's child first, so the chain exits by itself", { timeout: 10_000 }, async () => {
    const started = Date.now();
    const run = await supervise({
      ...base,
      file: "/bin/sh",
      args: ["-c", "sleep 30; exit 3"],
      timeoutMs: 300,
      terminate: terminateNamespace,
    });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
