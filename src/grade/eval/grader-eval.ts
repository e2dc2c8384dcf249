import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { Grader } from "../types.ts";
import { mapOrdered } from "./map-ordered.ts";
import { scorePairs } from "./pairwise-accuracy.ts";

/**
 * `gagar grader eval`: runs a grader over groups that carry a reference patch and reports how well
 * its rankings agree with reference-based preferences (pairwise-accuracy.ts, the metric of
 * ../shared/eval/grader_eval.py), plus what the agent grader records about itself: position
 * consistency, tokens and requests per group, fallbacks, and wall time per group.
 * The grader never sees the reference: it is stripped before grading.
 */
export interface GroupEval {
  groupId: string;
  ranking?: Ranking;
  /** Set when the grader threw; the group's clear pairs then count as misses. */
  error?: string;
  hits: number;
  pairs: number;
  latencyMs: number;
}

export interface EvalReport {
  grader: string;
  version: string;
  groups: number;
  groupsWithReference: number;
  pairs: number;
  hits: number;
  /** hits / pairs; null when there are no clear pairs. */
  accuracy: number | null;
  /** Mean position consistency over the groups that had one (graded by the model in ≥ 2 passes). */
  consistency: { mean: number | null; groups: number };
  perGroup: { promptTokens: number; completionTokens: number; requests: number };
  latencyMs: { mean: number; p50: number; p95: number; max: number };
  fallbacks: number;
  errors: number;
}

export async function evaluateGrader(
  groups: Group[],
  grader: Grader,
  options: { concurrency?: number; now?: () => number } = {},
): Promise<{ report: EvalReport; results: GroupEval[] }> {
  const now = options.now ?? Date.now;
  const results: GroupEval[] = [];
  const grade = async (group: Group): Promise<GroupEval> => {
    const { reference: _reference, ...blind } = group;
    const started = now();
    const outcome = await grader.grade(blind as Group).then(
      (ranking) => ({ ranking }),
      (e: Error) => ({ error: e.message }),
    );
    const score = scorePairs(group, "ranking" in outcome ? outcome.ranking.ranking : undefined);
    return { groupId: group.id, ...outcome, ...score, latencyMs: now() - started };
  };
  for await (const result of mapOrdered(groups, options.concurrency ?? 1, grade)) results.push(result);
  return { report: summarize(grader, groups, results), results };
}

function summarize(grader: Grader, groups: Group[], results: GroupEval[]): EvalReport {
  const stats = results.map((r) => (r.ranking?.grader ?? {}) as Record<string, unknown>);
  const usage = stats.map((s) => (s.usage ?? {}) as Record<string, number | undefined>);
  const consistencies = stats.map((s) => s.consistency).filter((c): c is number => typeof c === "number");
  const pairs = sum(results.map((r) => r.pairs));
  const hits = sum(results.map((r) => r.hits));
  const n = Math.max(results.length, 1);
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  return {
    grader: grader.name,
    version: grader.version,
    groups: groups.length,
    groupsWithReference: groups.filter((g) => g.reference !== undefined).length,
    pairs,
    hits,
    accuracy: pairs ? hits / pairs : null,
    consistency: {
      mean: consistencies.length ? sum(consistencies) / consistencies.length : null,
      groups: consistencies.length,
    },
    perGroup: {
      promptTokens: sum(usage.map((u) => u.promptTokens ?? 0)) / n,
      completionTokens: sum(usage.map((u) => u.completionTokens ?? 0)) / n,
      requests: sum(usage.map((u) => u.requests ?? 0)) / n,
    },
    latencyMs: {
      mean: sum(latencies) / n,
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      max: latencies.at(-1) ?? 0,
    },
    fallbacks: stats.filter((s) => s.fallback !== undefined).length,
    errors: results.filter((r) => r.error !== undefined).length,
  };
}

/** Nearest-rank quantile of sorted values (0 for none). */
function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function sum(xs: number[]): number {
  return xs.reduce((s, x) => s + x, 0);
}
