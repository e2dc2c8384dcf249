import { z } from "zod";
import type { AdvantageRow } from "../contracts/advantage-row.ts";
import { correlation, distribution } from "./summary-stats.ts";

/** What the metrics need to know about one candidate of the step. */
export interface CandidateFacts {
  groupKept: boolean;
  passed: boolean;
  tokens?: number;
  turns?: number;
  /** Lines added plus removed by the patch. */
  patchLines: number;
}

export interface StepMetricsInput {
  candidates: CandidateFacts[];
  groupsGenerated: number;
  groupsKept: number;
  rounds: number;
  /** Advantage rows of the kept groups, with whether the candidate passed and its trajectory tokens. */
  advantages: { row: AdvantageRow; passed: boolean; tokens: number }[];
  /** Distinct patches verified in this process, and verdicts reused from the store (resume, duplicates). */
  verifications: { fresh: number; reused: number };
  graderCalls: number;
  graderFallbacks: number;
  vetoed: number;
  stageMs: Record<string, number>;
}

const Spread = z.object({ mean: z.number(), p50: z.number(), p90: z.number() });

/**
 * The metrics of one finished step, as the pipeline computes them and the store keeps them (the
 * step's `metrics` column). Readers of a store (reports) validate with this schema; fields added
 * later must be optional so older stores stay readable.
 */
export const StepMetrics = z.looseObject({
  passRate: z.number(),
  groupsGenerated: z.number(),
  groupsKept: z.number(),
  rounds: z.number(),
  rolloutsGenerated: z.number(),
  rolloutsPerKeptGroup: z.number(),
  tokens: Spread,
  turns: Spread,
  passingPatchLines: z.number(),
  advantage: z.looseObject({
    /**
     * Within-group spread of advantages among passing candidates (a pass the veto turned into a
     * failure counts as a failure): 0 under GRPO with binary rewards.
     */
    passingStdGrpo: z.number(),
    passingStdGagar: z.number(),
    /**
     * Within-group correlation of advantage with trajectory tokens among passing candidates (both
     * centred on their group's passing mean, then pooled). GRPO gives every pass of a group the same
     * credit (0 with binary rewards); negative under GAGAR means longer passing trajectories got
     * less — the mechanism behind the paper's slower growth of trajectory length.
     */
    tokenCorrelationGrpo: z.number(),
    tokenCorrelationGagar: z.number(),
    redistributedGroups: z.number(),
  }),
  verifications: z.looseObject({ fresh: z.number(), reused: z.number() }),
  grader: z.looseObject({ calls: z.number(), fallbacks: z.number(), vetoed: z.number() }),
  stageMs: z.record(z.string(), z.number()),
});
export type StepMetrics = z.infer<typeof StepMetrics>;

export function computeStepMetrics(input: StepMetricsInput): StepMetrics {
  const all = input.candidates;
  const passing = all.filter((c) => c.passed);
  const passingRows = input.advantages.filter((a) => a.passed);
  const grpo = passingRows.map((a) => a.row.baseAdvantage);
  const gagar = passingRows.map((a) => a.row.advantage);
  const groupOf = passingRows.map((a) => a.row.groupId);
  const tokens = centredByGroup(
    passingRows.map((a) => a.tokens),
    groupOf,
  );
  const redistributed = new Set(input.advantages.filter((a) => a.row.weight !== 1).map((a) => a.row.groupId))
    .size;
  return {
    passRate: all.length ? passing.length / all.length : 0,
    groupsGenerated: input.groupsGenerated,
    groupsKept: input.groupsKept,
    rounds: input.rounds,
    rolloutsGenerated: all.length,
    rolloutsPerKeptGroup: input.groupsKept ? all.length / input.groupsKept : 0,
    tokens: distribution(all.flatMap((c) => (c.tokens === undefined ? [] : [c.tokens]))),
    turns: distribution(all.flatMap((c) => (c.turns === undefined ? [] : [c.turns]))),
    passingPatchLines: passing.length ? passing.reduce((s, c) => s + c.patchLines, 0) / passing.length : 0,
    advantage: {
      passingStdGrpo: std(centredByGroup(grpo, groupOf)),
      passingStdGagar: std(centredByGroup(gagar, groupOf)),
      tokenCorrelationGrpo: correlation(centredByGroup(grpo, groupOf), tokens),
      tokenCorrelationGagar: correlation(centredByGroup(gagar, groupOf), tokens),
      redistributedGroups: redistributed,
    },
    verifications: input.verifications,
    grader: { calls: input.graderCalls, fallbacks: input.graderFallbacks, vetoed: input.vetoed },
    stageMs: input.stageMs,
  };
}

/** Root mean square of values already centred on their group means. */
function std(centred: number[]): number {
  return centred.length ? Math.sqrt(centred.reduce((s, v) => s + v * v, 0) / centred.length) : 0;
}

/** Each value minus the mean of its group, so pooled statistics see only within-group variation. */
function centredByGroup(values: readonly number[], groups: readonly string[]): number[] {
  const sums = new Map<string, { sum: number; n: number }>();
  values.forEach((v, i) => {
    const s = sums.get(groups[i]!) ?? { sum: 0, n: 0 };
    sums.set(groups[i]!, { sum: s.sum + v, n: s.n + 1 });
  });
  return values.map((v, i) => {
    const s = sums.get(groups[i]!)!;
    return v - s.sum / s.n;
  });
}
