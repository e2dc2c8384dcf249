import { z } from "zod";
import { AdvantageRow } from "./advantage-row.ts";
import { AdvantageSettings } from "./advantage-settings.ts";
import { Group, Trajectory } from "./group.ts";
import { Ranking, RankingInput } from "./ranking.ts";
import { Rollout } from "./rollout.ts";
import { Verdict } from "./verdict.ts";

/**
 * The HTTP service's request and response bodies (`gagar serve`, served as OpenAPI at
 * /openapi.json), built from the record contracts. Top-level objects are strict, so a misspelt
 * key is an error that names it rather than an option silently ignored.
 */

/** The longest a request may ask to wait for its job (seconds); past it, poll /v1/jobs/{id}. */
export const MAX_WAIT_SEC = 600;
/** What `wait: true` means, in seconds. */
export const DEFAULT_WAIT_SEC = 60;

const Wait = z
  .union([z.boolean(), z.number().min(0).max(MAX_WAIT_SEC)])
  .default(false)
  .describe(
    `Wait for the result: true (up to ${DEFAULT_WAIT_SEC} s) or seconds; answered 202 with the job id if it takes longer`,
  );

/** Array of records whose `key` must be unique; the issue names the second occurrence. */
function unique<T extends z.ZodType>(item: T, key: (v: z.output<T>) => string, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    const seen = new Map<string, number>();
    items.forEach((v, i) => {
      const k = key(v);
      const first = seen.get(k);
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [i],
          message: `duplicate ${what} "${k}" (also at index ${first})`,
        });
      else seen.set(k, i);
    });
  });
}

const Groups = unique(Group, (g) => g.id, "group id").min(1);

export const AdvantagesRequest = z.strictObject({
  groups: Groups,
  /** One ranking per group at most; a trainer's own grader need only give `{groupId, ranking}`. */
  rankings: unique(RankingInput, (r) => r.groupId, "ranking for group").default([]),
  options: AdvantageSettings.prefault({}),
});
export type AdvantagesRequest = z.output<typeof AdvantagesRequest>;

export const AdvantagesResponse = z.object({
  /** One per candidate, groups and candidates in request order: what `gagar advantages` writes. */
  rows: z.array(AdvantageRow),
  warnings: z.array(z.string()),
});

export const VerifyRequest = z.strictObject({
  rollouts: unique(Rollout, (r) => r.id, "rollout id").min(1),
  wait: Wait,
});
export type VerifyRequest = z.output<typeof VerifyRequest>;

export const VerifyResult = z.object({
  /** One per rollout, in request order: what `gagar verify --out` writes. */
  verdicts: z.array(Verdict),
});
export type VerifyResult = z.output<typeof VerifyResult>;

export const GradeRequest = z.strictObject({
  groups: Groups,
  grader: z.string().min(1).default("static"),
  /** Options of the static grader; model graders take theirs from the service's configuration. */
  options: z.record(z.string(), z.unknown()).default({}),
  wait: Wait,
});
export type GradeRequest = z.output<typeof GradeRequest>;

export const GradeResult = z.object({ rankings: z.array(Ranking) });
export type GradeResult = z.output<typeof GradeResult>;

export const StepCandidate = z.looseObject({
  id: z.string().min(1),
  /** The rollout's final patch (a unified diff against the task's repository). */
  patch: z.string(),
  /** Turns and token counts: `tokens` is needed with `preserve: "token"`. */
  trajectory: Trajectory.optional(),
});

export const StepGroup = z.strictObject({
  id: z.string().min(1),
  taskId: z.string().min(1),
  candidates: unique(StepCandidate, (c) => c.id, "candidate id").min(1),
});
export type StepGroup = z.output<typeof StepGroup>;

export const StepRequest = z.strictObject({
  groups: unique(StepGroup, (g) => g.id, "group id").min(1),
  grader: z.string().min(1).default("static"),
  graderOptions: z.record(z.string(), z.unknown()).default({}),
  options: AdvantageSettings.prefault({}),
  wait: Wait,
});
export type StepRequest = z.output<typeof StepRequest>;

export const StepGroupOutcome = z.object({
  id: z.string(),
  taskId: z.string(),
  /** Kept by the dynamic-sampling filter (rewards not all equal). */
  kept: z.boolean(),
  dropReason: z.string().optional(),
  passed: z.number().int(),
  candidates: z.number().int(),
  /** The grader's ranking, for kept groups with at least two passing candidates. */
  ranking: Ranking.optional(),
});

export const StepResult = z.object({
  /**
   * One per candidate of every group, in request order. A dropped group's rows carry the
   * estimator's advantage for equal rewards (zero under GRPO): leave them out of the batch for DAPO
   * filtering, or train on them as zeros.
   */
  rows: z.array(AdvantageRow),
  groups: z.array(StepGroupOutcome),
  /** One per candidate, in request order. */
  verdicts: z.array(Verdict),
  /** The step's metrics, as `gagar run` records them (pass rate, advantage spread, …). */
  metrics: z.record(z.string(), z.unknown()),
});
export type StepResult = z.output<typeof StepResult>;

export const JobKind = z.enum(["verify", "grade", "step"]);
export type JobKind = z.infer<typeof JobKind>;

export const JobView = z.object({
  jobId: z.string(),
  kind: JobKind,
  state: z.enum(["waiting", "active", "completed", "failed"]),
  /** Work units finished and in total (verifications, gradings). */
  progress: z.object({ done: z.number().int(), total: z.number().int() }).optional(),
  /** VerifyResult, GradeResult or StepResult, once completed. */
  result: z.unknown().optional(),
  /** Why the job failed. */
  error: z.string().optional(),
  createdAt: z.string(),
  finishedAt: z.string().optional(),
});
export type JobView = z.output<typeof JobView>;

export const ErrorBody = z.object({
  error: z.object({
    /** The HTTP status, repeated. */
    status: z.number().int(),
    code: z.string(),
    /** What is wrong and where: `request body (field groups.0.candidates.2.passed): …`. */
    message: z.string(),
    /** The dotted path of the bad field in the request body, when there is one. */
    field: z.string().optional(),
  }),
});
