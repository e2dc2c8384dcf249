import { SandboxError } from "../errors.ts";
import type { Supervised } from "./supervise.ts";
import type { RunResult } from "./types.ts";

/** Host-side shortages that may pass on their own: worth retrying rather than failing the sample. */
const TRANSIENT =
  /Resource temporarily unavailable|Cannot allocate memory|No space left on device|Too many open files/i;

/**
 * Turns a supervised chain into a RunResult. `programExit` is the sandboxed program's own status as the
 * chain reported it on fd 3 (undefined when the program never started). A run the supervisor killed is
 * the candidate's outcome (timeout or output cap: reward 0); a chain that failed before starting the
 * program is an infrastructure error, never a candidate's failure.
 */
export function toRunResult(
  run: Supervised,
  programExit: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined,
  replacedPaths: string[] = [],
): RunResult {
  const base = {
    timedOut: run.timedOut,
    outputCapped: run.outputCapped,
    ...(run.cancelled ? { cancelled: true } : {}),
    stdout: run.stdout,
    stderr: run.stderr,
    durationMs: run.durationMs,
    ...(replacedPaths.length ? { replacedPaths } : {}),
  };
  if (run.undelivered) {
    throw new SandboxError(
      "the sandbox ended before its input was delivered (started ahead, it waited too long or died waiting)",
      true,
    );
  }
  if (run.timedOut || run.outputCapped || run.cancelled)
    return { ...base, exitCode: null, signal: "SIGKILL" };
  if (programExit) return { ...base, ...programExit };
  const how = run.signal ? `signal ${run.signal}` : `exit ${run.exitCode}`;
  const tail = run.stderr.trim().split("\n").slice(-5).join("\n");
  throw new SandboxError(
    `sandbox failed before starting the program (${how}): ${tail || "no message"}`,
    TRANSIENT.test(tail),
  );
}
