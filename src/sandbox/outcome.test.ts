import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.ts";
import { toRunResult } from "./outcome.ts";
import type { Supervised } from "./supervise.ts";

const run = (over: Partial<Supervised>): Supervised => ({
  pid: 1234,
  exitCode: 1,
  signal: null,
  timedOut: false,
  outputCapped: false,
  stdout: "",
  stderr: "",
  status: "",
  durationMs: 5,
  ...over,
});

describe("toRunResult", () => {
  it("reports the program's own exit", () => {
    expect(toRunResult(run({ stdout: "ok" }), { exitCode: 0, signal: null })).toEqual({
      exitCode: 0,
      signal: null,
      timedOut: false,
      outputCapped: false,
      stdout: "ok",
      stderr: "",
      durationMs: 5,
    });
  });

  it("reports a supervisor kill as SIGKILL, whatever the chain said", () => {
    const result = toRunResult(run({ timedOut: true, exitCode: 137 }), undefined, ["/workspace/tests"]);
    expect(result).toMatchObject({
      exitCode: null,
      signal: "SIGKILL",
      timedOut: true,
      replacedPaths: ["/workspace/tests"],
    });
  });

  it("turns a chain that never started the program into a SandboxError", () => {
    const failed = () =>
      toRunResult(run({ stderr: "bwrap: execvp nope: No such file or directory\n" }), undefined);
    expect(failed).toThrow(SandboxError);
    expect(failed).toThrow(/before starting the program \(exit 1\): bwrap: execvp nope/);
    let transient: unknown;
    try {
      toRunResult(run({ stderr: "bwrap: fork: Resource temporarily unavailable" }), undefined);
    } catch (error) {
      transient = error;
    }
    expect(transient).toMatchObject({ retryable: true });
  });
});
