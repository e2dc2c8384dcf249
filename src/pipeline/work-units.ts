import { createHash } from "node:crypto";
import { z } from "zod";
import { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import { type Verdict, Verdict as VerdictSchema } from "../contracts/verdict.ts";
import { InvariantError, SandboxError } from "../errors.ts";
import { createGrader } from "../grade/registry.ts";
import type { Grader } from "../grade/types.ts";
import { GroupProber } from "../probe/group-probes.ts";
import { HandBack, type JobContext, type JobHandler } from "../queue/types.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import { patchSha256 } from "../store/patch-sha.ts";
import type { PackSource } from "../verify/pack/pack-catalog.ts";
import { Verifier } from "../verify/verifier.ts";
import { verifyRollouts } from "../verify/verify-rollouts.ts";
import { packProber, probeThenGrade } from "./probed-grading.ts";

/**
 * The units of work that `gagar worker` processes (and `gagar serve` itself without a queue): one
 * verification of one patch for one task, or one grading of one group. A unit's job id is its
 * content key, so the same work asked for by many requests, or again by a retried request, is
 * queued and done once, and its result stored once.
 */

export const VerifyUnit = z.strictObject({
  taskId: z.string().min(1),
  /** Content digest of the task pack (pack-digest.ts): the worker verifies against exactly this. */
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  patch: z.string(),
  protectedPolicy: z.enum(["strip", "reject"]),
});
export type VerifyUnit = z.output<typeof VerifyUnit>;

/** Where a request's record points into its list of units. */
export const UnitIndex = z.number().int().nonnegative();

export const GradeUnit = z.strictObject({
  /** The group without `task.workspace`: the worker sets it from the task pack when there is one. */
  group: Group,
  /** Digest of the group's task pack, if the service has it (graders then read the repository). */
  digest: z.string().optional(),
  grader: z.string().min(1),
  options: z.record(z.string(), z.unknown()),
  /** Behavioural probes before grading, when the pack is known (`digest`): the budget per group. */
  probes: z.strictObject({ budgetSec: z.number().positive() }).optional(),
});
export type GradeUnit = z.output<typeof GradeUnit>;

export const UNIT_KINDS = { verify: "verify", grade: "grade" } as const;

/** (task digest, patch sha256), plus the protected-path policy that can change the verdict. */
export function verifyUnitId(unit: VerifyUnit): string {
  return `verify-${unit.digest}-${patchSha256(unit.patch)}${unit.protectedPolicy === "strip" ? "" : "-reject"}`;
}

export function gradeUnitId(unit: GradeUnit): string {
  return `grade-${createHash("sha256").update(JSON.stringify(unit)).digest("hex")}`;
}

export interface UnitHandlerDeps {
  packs: PackSource;
  /**
   * The process's verifier session for a protected-path policy (the service chooses the policy and
   * puts it in each unit): task snapshots are built once per session and reused.
   */
  verifier(policy: VerifyUnit["protectedPolicy"]): Verifier;
  /** The grader for a name and the request's options (the process adds its own model settings). */
  grader(name: string, options: Record<string, unknown>): Grader;
  /** One line per unit started and finished, for the operator. */
  log?: (line: string) => void;
}

/** The queue handler for work units. */
export function unitHandler(deps: UnitHandlerDeps): JobHandler {
  return async (job) => {
    if (job.name === UNIT_KINDS.verify) return verifyUnit(deps, job);
    if (job.name === UNIT_KINDS.grade) return gradeUnit(deps, job);
    throw new InvariantError(`unknown work unit kind "${job.name}" (job ${job.id})`);
  };
}

async function verifyUnit(deps: UnitHandlerDeps, job: JobContext): Promise<Verdict> {
  // An attempt that died after verifying saved its verdict: it is not verified a second time.
  if (job.checkpoint !== undefined) return VerdictSchema.parse(job.checkpoint);
  const unit = VerifyUnit.parse(job.data);
  const pack = await packFor(deps, unit.taskId, unit.digest);
  const label = `${unit.taskId} patch ${patchSha256(unit.patch).slice(0, 12)}`;
  deps.log?.(`verifying ${label} (attempt ${job.attempt})`);
  const started = performance.now();
  const [verdict] = await verifyRollouts([{ id: "candidate", taskId: unit.taskId, patch: unit.patch }], {
    tasks: new Map([[unit.taskId, pack]]),
    verifier: deps.verifier(unit.protectedPolicy),
    jobs: 1,
  });
  if (!verdict) throw new InvariantError(`verifyRollouts gave no verdict for ${label}`);
  // A verifier or host fault says nothing about the patch: another attempt (maybe elsewhere) runs it.
  if (verdict.reason === "infra-error") throw new SandboxError(verdict.detail ?? "infra-error", true);
  await job.saveCheckpoint(verdict);
  deps.log?.(
    `verified ${label}: ${verdict.reason} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return verdict;
}

async function gradeUnit(deps: UnitHandlerDeps, job: JobContext): Promise<Ranking> {
  const unit = GradeUnit.parse(job.data);
  const group = structuredClone(unit.group);
  if (unit.digest) group.task.workspace = (await packFor(deps, group.task.id, unit.digest)).repoDir;
  deps.log?.(`grading group ${group.id} with ${unit.grader}`);
  const grader = deps.grader(unit.grader, unit.options);
  if (!unit.probes || !unit.digest) return grader.grade(group, { signal: job.signal });
  const pack = await packFor(deps, group.task.id, unit.digest);
  const prober = packProber(() => pack, proberOf(deps.verifier("strip")), { ...unit.probes, jobs: 1 });
  const { ranking } = await probeThenGrade(grader, group, prober, { ctx: { signal: job.signal } });
  return ranking;
}

/** One prober per verifier session: a task's probe plan is made once per process. */
const probers = new WeakMap<Verifier, GroupProber>();
function proberOf(verifier: Verifier): GroupProber {
  let prober = probers.get(verifier);
  if (!prober) {
    prober = new GroupProber(verifier);
    probers.set(verifier, prober);
  }
  return prober;
}

/**
 * The task pack a unit names. A process that cannot get it (not on its shared path, no service to
 * fetch it from, the service unreachable) hands the unit back for another process: the pack is
 * missing here, nothing is wrong with the unit.
 */
async function packFor(deps: UnitHandlerDeps, taskId: string, digest: string) {
  try {
    return await deps.packs.get(taskId, digest);
  } catch (e) {
    if (e instanceof InvariantError) throw e;
    const why = `cannot get the task pack of ${taskId}: ${(e as Error).message}`;
    deps.log?.(`handing the job back for another worker: ${why}`);
    throw new HandBack(why);
  }
}

/** A unit's verdict for one rollout: its id and group, the rest as verified (the order `gagar verify` writes). */
export function stampVerdict(verdict: Verdict, rollout: { id: string; groupId?: string }): Verdict {
  const { schemaVersion, rolloutId: _, taskId, groupId: __, ...rest } = verdict;
  return {
    schemaVersion,
    rolloutId: rollout.id,
    taskId,
    ...(rollout.groupId === undefined ? {} : { groupId: rollout.groupId }),
    ...rest,
  };
}

/** One verifier session per protected-path policy, made on first use, for a process that runs units. */
export class VerifierSessions {
  private readonly sessions = new Map<VerifyUnit["protectedPolicy"], Verifier>();

  constructor(
    private readonly sandbox: SandboxBackend,
    private readonly warn?: (message: string) => void,
  ) {}

  get(policy: VerifyUnit["protectedPolicy"]): Verifier {
    let verifier = this.sessions.get(policy);
    if (!verifier) {
      verifier = new Verifier({ sandbox: this.sandbox, protectedPolicy: policy, warn: this.warn });
      this.sessions.set(policy, verifier);
    }
    return verifier;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((v) => v.close()));
    this.sessions.clear();
  }
}

/**
 * Graders by name and request options, built once each. `settings` holds this process's own
 * options per grader (a model grader's server, model and key); a request's options go on top.
 */
export function graderCache(
  settings: Readonly<Record<string, Record<string, unknown>>>,
): (name: string, options: Record<string, unknown>) => Grader {
  const graders = new Map<string, Grader>();
  return (name, options) => {
    const key = `${name}\0${JSON.stringify(options)}`;
    let grader = graders.get(key);
    if (!grader) {
      grader = createGrader(name, { ...settings[name], ...options });
      graders.set(key, grader);
    }
    return grader;
  };
}
