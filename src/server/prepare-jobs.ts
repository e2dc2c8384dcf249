import { createHash } from "node:crypto";
import type { GradeRequest, JobKind, StepRequest, VerifyRequest } from "../contracts/service.ts";
import { InputError } from "../errors.ts";
import type { GradeJobData, VerifyJobData } from "../pipeline/service-jobs.ts";
import type { StepData } from "../pipeline/service-step.ts";
import { gradeUnitId, UNIT_KINDS, type VerifyUnit, verifyUnitId } from "../pipeline/work-units.ts";
import type { PackCatalog } from "../verify/pack/pack-catalog.ts";

/** Where a problem of a request is: the body, and the dotted field in it. */
export const BODY = "request body";

export interface PrepareContext {
  catalog: PackCatalog;
  protectedPolicy: VerifyUnit["protectedPolicy"];
  /** Throws an InputError at `field` for a grader (and options) this service does not run. */
  checkGrader(name: string, options: Record<string, unknown>, field: string): void;
  /** Throws an InputError at `field` for an unknown estimator. */
  checkEstimator(name: string, field: string): void;
  /** Behavioural probes before grading groups whose task pack the service has (absent: none). */
  probes?: { budgetSec: number };
}

/** A work unit a job will queue: its kind, content id and data. */
export interface UnitJob {
  kind: string;
  id: string;
  data: unknown;
}

/** A validated request as a job: its data, its content-derived id, and the units it queues first. */
export interface PreparedJob {
  kind: JobKind;
  id: string;
  data: VerifyJobData | GradeJobData | StepData;
  units: UnitJob[];
}

/**
 * Turns validated request bodies into request jobs, checking everything that can be checked before
 * anything is queued (unknown tasks, graders, estimators, missing token counts), with errors located
 * in the body. The job id is derived from the job's content, task digests included, so a client that
 * sends the same request again (a retry after a lost answer) gets the same job, not a second one.
 */
export function prepareVerify(request: VerifyRequest, ctx: PrepareContext): PreparedJob {
  const units = new UnitTable();
  const rollouts = request.rollouts.map((r, i) => ({
    id: r.id,
    taskId: r.taskId,
    ...(r.groupId === undefined ? {} : { groupId: r.groupId }),
    unit: units.add({
      taskId: r.taskId,
      digest: digestOf(ctx, r.taskId, `rollouts.${i}.taskId`),
      patch: r.patch,
      protectedPolicy: ctx.protectedPolicy,
    }),
  }));
  return job("verify", { units: units.list, rollouts }, units.jobs());
}

export function prepareGrade(request: GradeRequest, ctx: PrepareContext): PreparedJob {
  ctx.checkGrader(request.grader, request.options, "options");
  const units = request.groups.map((group, i) => {
    if (group.task.workspace !== undefined)
      throw new InputError(
        { file: BODY, field: `groups.${i}.task.workspace` },
        "the service sets the workspace from its own task packs; leave task.workspace out",
      );
    const digest = ctx.catalog.digest(group.task.id);
    return {
      group,
      ...(digest ? { digest } : {}),
      grader: request.grader,
      options: request.options,
      ...(digest && ctx.probes && { probes: ctx.probes }),
    };
  });
  return job(
    "grade",
    { units },
    units.map((u) => ({ kind: UNIT_KINDS.grade, id: gradeUnitId(u), data: u })),
  );
}

export function prepareStep(request: StepRequest, ctx: PrepareContext): PreparedJob {
  ctx.checkGrader(request.grader, request.graderOptions, "graderOptions");
  ctx.checkEstimator(request.options.estimator, "options.estimator");
  const units = new UnitTable();
  const groups = request.groups.map((g, gi) => {
    const digest = digestOf(ctx, g.taskId, `groups.${gi}.taskId`);
    const spec = ctx.catalog.pack(g.taskId)!.spec;
    return {
      id: g.id,
      task: { id: g.taskId, statement: spec.statement, language: spec.language },
      digest,
      candidates: g.candidates.map((c, ci) => {
        if (request.options.preserve === "token" && c.trajectory?.tokens === undefined)
          throw new InputError(
            { file: BODY, field: `groups.${gi}.candidates.${ci}.trajectory.tokens` },
            `preserve "token" needs token counts; candidate "${c.id}" has none`,
          );
        return {
          id: c.id,
          unit: units.add({ taskId: g.taskId, digest, patch: c.patch, protectedPolicy: ctx.protectedPolicy }),
          ...(c.trajectory ? { trajectory: c.trajectory } : {}),
        };
      }),
    };
  });
  const data: StepData = {
    units: units.list,
    groups,
    grader: request.grader,
    graderOptions: request.graderOptions,
    options: request.options,
    ...(ctx.probes && { probes: ctx.probes }),
  };
  // Grading units of a step are known only after its verification; the verifications are queued first.
  return job("step", data, units.jobs());
}

function digestOf(ctx: PrepareContext, taskId: string, field: string): string {
  const digest = ctx.catalog.digest(taskId);
  if (digest === undefined)
    throw new InputError({ file: BODY, field }, `no task pack "${taskId}" on this service`);
  return digest;
}

function job(kind: JobKind, data: PreparedJob["data"], units: UnitJob[]): PreparedJob {
  const digest = createHash("sha256").update(kind).update(JSON.stringify(data)).digest("hex");
  return { kind, id: `${kind}-${digest.slice(0, 40)}`, data, units };
}

/** Distinct verification units of a request, by content id; `add` returns the unit's index. */
class UnitTable {
  readonly list: VerifyUnit[] = [];
  private readonly index = new Map<string, number>();

  jobs(): UnitJob[] {
    return this.list.map((u) => ({ kind: UNIT_KINDS.verify, id: verifyUnitId(u), data: u }));
  }

  add(unit: VerifyUnit): number {
    const id = verifyUnitId(unit);
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.list.push(unit) - 1;
      this.index.set(id, i);
    }
    return i;
  }
}
