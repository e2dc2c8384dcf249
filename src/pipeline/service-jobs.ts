import { z } from "zod";
import type { Ranking } from "../contracts/ranking.ts";
import type { GradeResult, JobKind, StepResult, VerifyResult } from "../contracts/service.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { InvariantError, SandboxError } from "../errors.ts";
import { rankingProbes } from "../probe/group-findings.ts";
import type { JobContext, JobHandler, JobQueue } from "../queue/types.ts";
import type { RunStore } from "../store/run-store.ts";
import {
  assembleStep,
  gradingNeeded,
  recordStep,
  type StepData,
  StepJobData,
  stepGroups,
} from "./service-step.ts";
import { runUnits } from "./unit-waits.ts";
import {
  GradeUnit,
  gradeUnitId,
  stampVerdict,
  UNIT_KINDS,
  UnitIndex,
  VerifyUnit,
  verifyUnitId,
} from "./work-units.ts";

/**
 * The jobs the HTTP service accepts (`/v1/verify`, `/v1/grade`, `/v1/steps`), as the service stored
 * them after validating the request: patches live in the work units, which the request's records
 * point into by index. A request job fans its work out as units on the units queue (for `gagar
 * worker` processes, or the service itself), waits for them and assembles the answer. It holds no
 * state of its own: run again (after the service restarted), it finds its units where they are.
 */

export const VerifyJobData = z.strictObject({
  units: z.array(VerifyUnit),
  rollouts: z.array(
    z.strictObject({ id: z.string(), taskId: z.string(), groupId: z.string().optional(), unit: UnitIndex }),
  ),
});
export type VerifyJobData = z.output<typeof VerifyJobData>;

export const GradeJobData = z.strictObject({ units: z.array(GradeUnit) });
export type GradeJobData = z.output<typeof GradeJobData>;

export interface ServiceJobDeps {
  units: JobQueue;
  /** Where finished steps are recorded (the service's run store), under `runId`. */
  store: RunStore;
  runId: string;
  /** The step index the next finished step gets in the service's run. */
  nextStepIdx(): number;
  /** Told about each unit this process saw finish for the first time (metrics). */
  observe?: UnitObserver;
}

export interface UnitObserver {
  verified(reason: string, totalMs: number | undefined): void;
  ranked(ranking: Ranking): void;
}

/** The queue handler for request jobs, by kind. */
export function serviceJobHandler(deps: ServiceJobDeps): JobHandler {
  return async (job) => {
    switch (job.name as JobKind) {
      case "verify":
        return verifyJob(deps, job, VerifyJobData.parse(job.data));
      case "grade":
        return gradeJob(deps, job, GradeJobData.parse(job.data));
      case "step":
        return stepJob(deps, job, StepJobData.parse(job.data));
      default:
        throw new InvariantError(`unknown request kind "${job.name}" (job ${job.id})`);
    }
  };
}

async function verifyJob(deps: ServiceJobDeps, job: JobContext, data: VerifyJobData): Promise<VerifyResult> {
  const outcomes = await verifyUnits(deps, job, data.units);
  // As `gagar verify` does, a verification that failed for the verifier's or the host's reasons is
  // that rollout's infra-error verdict, not a failure of the whole request.
  const verdicts = data.rollouts.map((r) => {
    const outcome = outcomes[r.unit]!;
    const verdict = outcome.ok ? outcome.value : infraError(r.taskId, outcome.error);
    return stampVerdict(verdict, r);
  });
  return { verdicts };
}

async function gradeJob(deps: ServiceJobDeps, job: JobContext, data: GradeJobData): Promise<GradeResult> {
  const outcomes = await gradeUnits(deps, job, data.units);
  return {
    rankings: outcomes.map((o, i) => {
      if (!o.ok) throw new SandboxError(`grading group ${data.units[i]!.group.id} failed: ${o.error}`, false);
      return o.value;
    }),
  };
}

async function stepJob(deps: ServiceJobDeps, job: JobContext, data: StepData): Promise<StepResult> {
  const started = performance.now();
  const verified = await verifyUnits(deps, job, data.units);
  const verifyMs = performance.now() - started;
  const verdicts = verified.map((o, i) => {
    if (o.ok) return o.value;
    const unit = data.units[i]!;
    throw new SandboxError(
      `verifying a patch of task ${unit.taskId} failed after retries (${o.error}); the step cannot be scored — send it again`,
      false,
    );
  });
  const groups = stepGroups(data, verdicts);
  const toGrade = groups.filter(gradingNeeded);
  const gradeStarted = performance.now();
  const graded = await gradeUnits(
    deps,
    job,
    toGrade.map((g) => ({
      group: g.group,
      digest: g.digest,
      grader: data.grader,
      options: data.graderOptions,
      ...(data.probes && { probes: data.probes }),
    })),
  );
  const rankings = new Map<string, Ranking>();
  graded.forEach((o, i) => {
    const id = toGrade[i]!.group.id;
    if (!o.ok) throw new SandboxError(`grading group ${id} failed: ${o.error}`, false);
    rankings.set(id, o.value);
  });
  const fresh = new Set(
    data.units.map(verifyUnitId).filter((_, i) => !(verified[i]!.ok && verified[i]!.reused)),
  );
  const step = assembleStep(data, groups, rankings, {
    verifications: { fresh: fresh.size, reused: verdicts.length - fresh.size },
    stageMs: {
      verify: verifyMs,
      // Grading units probe first: their probe time is part of grade, and also counted apart.
      probe: [...rankings.values()].reduce((ms, r) => ms + (rankingProbes(r)?.durationMs ?? 0), 0),
      grade: performance.now() - gradeStarted,
      total: performance.now() - started,
    },
  });
  recordStep(deps.store, deps.runId, deps.nextStepIdx(), groups, step);
  return step;
}

async function verifyUnits(deps: ServiceJobDeps, job: JobContext, units: readonly VerifyUnit[]) {
  const outcomes = await runUnits<VerifyUnit, Verdict>(
    deps.units,
    job,
    UNIT_KINDS.verify,
    units,
    verifyUnitId,
  );
  const seen = new Set<string>();
  outcomes.forEach((o, i) => {
    const id = verifyUnitId(units[i]!);
    if (o.ok && !o.reused && !seen.has(id)) deps.observe?.verified(o.value.reason, o.value.durationsMs.total);
    seen.add(id);
  });
  return outcomes;
}

async function gradeUnits(deps: ServiceJobDeps, job: JobContext, units: readonly GradeUnit[]) {
  const outcomes = await runUnits<GradeUnit, Ranking>(deps.units, job, UNIT_KINDS.grade, units, gradeUnitId);
  for (const o of outcomes) if (o.ok && !o.reused) deps.observe?.ranked(o.value);
  return outcomes;
}

function infraError(taskId: string, error: string): Verdict {
  return {
    schemaVersion: 1,
    rolloutId: "",
    taskId,
    passed: false,
    reason: "infra-error",
    detail: `verifier fault, not the candidate's: ${error}`,
    tests: {},
    durationsMs: {},
    findings: [],
  };
}
