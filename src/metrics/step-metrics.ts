import type { AdvantageRow } from "../contracts/advantage-row.ts";
import { correlation, type Distribution, distribution } from "./summary-stats.ts";

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
  graderCalls: number;
  graderFallbacks: number;
  vetoed: number;
  stageMs: Record<string, number>;
}

export interface StepMetrics {
  passRate: number;
  groupsGenerated: number;
  groupsKept: number;
  rounds: number;
  rolloutsGenerated: number;
  rolloutsPerKeptGroup: number;
  tokens: Distribution;
  turns: Distribution;
  passingPatchLines: number;
  advantage: {
    /** Spread of advantages among passing candidates of kept groups: 0 under GRPO with binary rewards. */
    passingStdGrpo: number;
    passingStdGagar: number;
    /**
     * Correlation of advantage with trajectory tokens among passing candidates. GRPO gives every
     * pass the same credit (0); negative under GAGAR means longer passing trajectories got less —
     * the mechanism behind the paper's slower growth of trajectory length.
     */
    tokenCorrelationGrpo: number;
    tokenCorrelationGagar: number;
    redistributedGroups: number;
  };
  grader: { calls: number; fallbacks: number; vetoed: number };
  stageMs: Record<string, number>;
}

export function computeStepMetrics(input: StepMetricsInput): StepMetrics {
  const all = input.candidates;
  const passing = all.filter((c) => c.passed);
  const passingRows = input.advantages.filter((a) => a.passed);
  const grpo = passingRows.map((a) => a.row.baseAdvantage);
  const gagar = passingRows.map((a) => a.row.advantage);
  const tokens = passingRows.map((a) => a.tokens);
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
      passingStdGrpo: std(grpo),
      passingStdGagar: std(gagar),
      tokenCorrelationGrpo: correlation(grpo, tokens),
      tokenCorrelationGagar: correlation(gagar, tokens),
      redistributedGroups: redistributed,
    },
    grader: { calls: input.graderCalls, fallbacks: input.graderFallbacks, vetoed: input.vetoed },
    stageMs: input.stageMs,
  };
}

function std(values: number[]): number {
  if (values.length < 2) return 0;
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / values.length);
}
