import { type GateLimits, gatePatch, type ProtectedPolicy } from "./gate/patch-gate.ts";
import type { RunPool } from "./run/run-pool.ts";
import { candidateVerdict } from "./verdict/candidate-verdict.ts";
import type { Graded } from "./verdict/verdict.ts";
import type { TaskState } from "./workspace/task-state.ts";

/** The verifier's result for one patch: the graded test run, or a gate rejection in the same shape. */
export type Outcome = Graded;

/** What verifying a candidate takes from its session. */
export interface CandidateSession {
  pool: RunPool;
  protectedPolicy?: ProtectedPolicy;
  gateLimits?: Partial<GateLimits>;
}

export interface VerifyCallOptions {
  /**
   * Start the task's next run while this candidate tests (when a CPU is spare), because another
   * candidate of the same task is coming (verifyRollouts knows its queue). A function is asked at that
   * moment. Costs one idle sandbox if none comes.
   */
  readyNext?: boolean | (() => boolean);
  /** Report every test the run reported, not only the task's ids (Graded.observed). */
  observe?: boolean;
}

export interface CandidateCall extends VerifyCallOptions {
  /** When the verification of this candidate began (performance.now()), for `durationsMs.total`. */
  started: number;
  /** Module names of the test toolchain a Python patch must not shadow (toolchain-modules.ts). */
  shadowModules?: Set<string>;
}

/**
 * One candidate of a prepared task, through the stages once and in order:
 * 1. gate (gate/patch-gate.ts): the patch is parsed, checked and rendered for git, or refused;
 * 2. run (run/run-pool.ts): a sandbox on a fresh workspace of the task's snapshot (workspace/), started
 *    for it or ahead, applies the rendering with git and runs the tests with the hidden tests,
 *    protected files and canaries laid read-only over the workspace;
 * 3. verdict and findings (verdict/candidate-verdict.ts): the run's outputs read after the sandbox is
 *    gone, graded, with the gate's, the patch scan's and the run's findings.
 * Rejects only for verifier-side faults (callers map them to infra-error).
 */
export async function verifyCandidate(
  session: CandidateSession,
  task: TaskState,
  patch: string,
  call: CandidateCall,
): Promise<Outcome> {
  const { pack } = task;
  const gateStarted = performance.now();
  const gate = gatePatch(patch, {
    policy: task.policy,
    protectedPolicy: session.protectedPolicy,
    limits: session.gateLimits,
    shadowModules: call.shadowModules,
    pristineHas: (p) => task.snapshot.paths.has(p),
    ...(pack.runner.python && {
      testImports: { repository: task.guard.modules, others: task.guard.watch },
    }),
  });
  const gateMs = performance.now() - gateStarted;
  if (!gate.ok) {
    return {
      passed: false,
      reason: "patch-rejected",
      detail: gate.reason,
      tests: {},
      durationsMs: { gate: gateMs, total: performance.now() - call.started },
      findings: gate.findings,
    };
  }
  const readyNext = () => (typeof call.readyNext === "function" ? call.readyNext() : !!call.readyNext);
  return session.pool.run(task, gate, readyNext, (run, result, request) => {
    const verdict = candidateVerdict(
      { task, token: request.token, gate, observe: call.observe },
      run,
      result,
    );
    return {
      ...verdict,
      durationsMs: {
        gate: gateMs,
        workspace: run.workspace.prepareMs,
        sandbox: result.durationMs,
        ...verdict.durationsMs,
        total: performance.now() - call.started,
      },
    };
  });
}
