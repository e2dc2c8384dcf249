import { createHash } from "node:crypto";
import { createLimiter } from "../concurrency/limiter.ts";
import { SCHEMA_VERSION } from "../contracts/group.ts";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { ConfigError, isUserError } from "../errors.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import { EnvironmentError } from "./environments/types.ts";
import type { GateLimits, ProtectedPolicy } from "./gate/patch-gate.ts";
import type { TaskPack } from "./pack/task-pack.ts";
import { type Outcome, Verifier } from "./verifier.ts";
import type { WorkspaceLimits } from "./workspace/workspace.ts";

/**
 * The library entry point of verification (`gagar verify` and the RL pipeline call it).
 *
 * Rollouts with the same task and byte-identical patch are verified once and share the outcome (RL
 * groups often contain duplicates, and the verdict of a patch does not depend on who wrote it). The
 * unique jobs run on a pool of `jobs` parallel sandboxes. Verdicts come back in input order. A fault of
 * the verifier or the host on one job becomes that job's `infra-error` verdict (not a reward: callers
 * should drop or retry those samples); a sandbox that cannot run at all fails the call up front.
 * While a candidate of a task tests, the sandbox for the task's next queued candidate is started on a
 * spare CPU (Verifier.verify's `readyNext`), so later candidates of a task can skip the sandbox set-up.
 * No sandbox of the call is alive when it returns.
 */
export interface VerifyRolloutsOptions {
  tasks: ReadonlyMap<string, TaskPack>;
  /** The sandbox backend (from `selectBackend`). Ignored when `verifier` is given. */
  sandbox?: SandboxBackend;
  /** A session to reuse across calls (keeps task snapshots); closed by the caller. */
  verifier?: Verifier;
  jobs?: number;
  /**
   * A slot every job takes before it starts, shared with other callers (the pipeline verifies its
   * groups concurrently with one cap on sandboxes for the whole run).
   */
  limit?: <T>(job: () => Promise<T>) => Promise<T>;
  protectedPolicy?: ProtectedPolicy;
  gateLimits?: Partial<GateLimits>;
  workspaceLimits?: WorkspaceLimits;
  warn?: (message: string) => void;
  onProgress?: (progress: VerifyProgress) => void;
}

export interface VerifyProgress {
  /** Unique (task, patch) jobs finished and in total. */
  done: number;
  total: number;
  /** The verdict of the first rollout of the job that just finished. */
  verdict: Verdict;
}

export async function verifyRollouts(
  rollouts: readonly Rollout[],
  options: VerifyRolloutsOptions,
): Promise<Verdict[]> {
  for (const r of rollouts) {
    if (!options.tasks.has(r.taskId))
      throw new ConfigError(`rollout "${r.id}" names task "${r.taskId}", which is not in the task packs`);
  }
  const jobs = new Map<string, number[]>();
  rollouts.forEach((r, i) => {
    const key = `${r.taskId}\u0000${createHash("sha256").update(r.patch).digest("hex")}`;
    const members = jobs.get(key);
    if (members) members.push(i);
    else jobs.set(key, [i]);
  });
  if (!options.verifier && !options.sandbox)
    throw new ConfigError("verifyRollouts needs a sandbox backend or a verifier");
  const verifier =
    options.verifier ??
    new Verifier({
      sandbox: options.sandbox!,
      protectedPolicy: options.protectedPolicy,
      gateLimits: options.gateLimits,
      workspaceLimits: options.workspaceLimits,
      warn: options.warn,
    });
  const verdicts: Verdict[] = new Array(rollouts.length);
  try {
    await verifier.selfTest();
    // Jobs start in input order, each once it holds a slot of `jobs` (and of the caller's shared
    // `limit`); `waiting` is what has not started yet, which is what `readyNext` looks at.
    const waiting = new Set(jobs.values());
    const local = createLimiter(Math.max(1, Math.min(options.jobs ?? 1, jobs.size)));
    const shared = options.limit ?? (<T>(job: () => Promise<T>) => job());
    let done = 0;
    const runJob = async (members: number[]) => {
      waiting.delete(members);
      const first = rollouts[members[0]!]!;
      // Another candidate of this task is still queued when this one's input is delivered: have its
      // sandbox started while this one tests.
      const readyNext = () => [...waiting].some((later) => rollouts[later[0]!]!.taskId === first.taskId);
      const outcome = await verifyOne(verifier, options.tasks.get(first.taskId)!, first.patch, readyNext);
      for (const i of members) verdicts[i] = toVerdict(rollouts[i]!, outcome);
      options.onProgress?.({ done: ++done, total: jobs.size, verdict: verdicts[members[0]!]! });
    };
    await Promise.all([...jobs.values()].map((members) => local(() => shared(() => runJob(members)))));
  } finally {
    // A run started ahead for a candidate that another worker took first is never used.
    if (options.verifier)
      await verifier.dropReadyRuns(new Set(rollouts.map((r) => options.tasks.get(r.taskId)!)));
    else await verifier.close();
  }
  return verdicts;
}

async function verifyOne(
  verifier: Verifier,
  pack: TaskPack,
  patch: string,
  readyNext: () => boolean,
): Promise<Outcome> {
  if (pack.invalid) {
    // Not a reward: the task cannot tell a fix from a non-fix (tasks/check.ts), so nothing is run.
    return {
      passed: false,
      reason: "infra-error",
      detail: `task pack fault, not the candidate's: task ${pack.spec.id} was found invalid by gagar tasks check (${pack.invalid.join("; ")})`,
      tests: {},
      durationsMs: {},
      findings: [],
    };
  }
  try {
    return await verifier.verify(pack, patch, { readyNext });
  } catch (e) {
    const where = isUserError(e) ? "task pack" : "verifier";
    return {
      passed: false,
      reason: "infra-error",
      detail: `${where} fault, not the candidate's: ${(e as Error).message}`,
      tests: {},
      durationsMs: {},
      findings: [],
      // A set-up command's own output says why (npm's "not in sync … Missing: chai@3.5.0").
      ...(e instanceof EnvironmentError && e.outputTail && { outputTail: e.outputTail }),
    };
  }
}

function toVerdict(rollout: Rollout, outcome: Outcome): Verdict {
  const verdict: Verdict = {
    schemaVersion: SCHEMA_VERSION,
    rolloutId: rollout.id,
    taskId: rollout.taskId,
    passed: outcome.passed,
    reason: outcome.reason,
    tests: { ...outcome.tests },
    durationsMs: roundAll(outcome.durationsMs),
    findings: outcome.findings.map((f) => ({ ...f })),
  };
  if (rollout.groupId !== undefined) verdict.groupId = rollout.groupId;
  if (outcome.detail !== undefined) verdict.detail = outcome.detail;
  if (outcome.outputTail) verdict.outputTail = outcome.outputTail;
  if (outcome.failureMessages) verdict.failureMessages = outcome.failureMessages;
  return verdict;
}

function roundAll(durations: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(durations).map(([k, v]) => [k, Math.round(v)]));
}
