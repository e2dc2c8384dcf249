import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import { mapOrdered } from "../agent/map-ordered.ts";
import type { Grader } from "../types.ts";
import { BASELINES } from "./baselines.ts";
import { clearPairs, type PairwiseScore, scorePairs, sizeMisleadingPairs } from "./pairwise-accuracy.ts";

/**
 * `gagar grader eval`: runs a grader over groups that carry a reference patch and reports how well
 * its rankings agree with reference-based preferences (pairwise-accuracy.ts; docs/grader-protocol.md
 * "Evaluation"), beside the naive baselines on the same pairs (baselines.ts), on all clear pairs and
 * on the size-misleading ones (the better patch is the larger). Groups whose candidates carry a
 * `hack` label ("hard-coding", "test-tampering"…) also get critical recall: how many labelled
 * candidates the grader put in its last tier. Plus what the agent grader records about itself:
 * position consistency, tokens and requests per group, fallbacks, and wall time per group.
 * The grader never sees the reference or the labels: both are stripped before grading.
 */
export interface GroupEval {
  groupId: string;
  ranking?: Ranking;
  /** Set when the grader threw; the group's clear pairs then count as misses. */
  error?: string;
  hits: number;
  pairs: number;
  sizeMisleading: PairwiseScore;
  latencyMs: number;
}

export interface SubsetScore extends PairwiseScore {
  /** hits / pairs; null when there are no such pairs. */
  accuracy: number | null;
}

export interface CriticalRecall {
  /** Labelled passing candidates, and how many of them sit in the ranking's last tier. */
  labelled: number;
  inLastTier: number;
  byLabel: Record<string, { labelled: number; inLastTier: number }>;
}

export interface EvalReport {
  grader: string;
  version: string;
  groups: number;
  groupsWithReference: number;
  pairs: number;
  hits: number;
  /** hits / pairs over every clear pair; null when there are none. */
  accuracy: number | null;
  sizeMisleading: SubsetScore;
  /** Each baseline on the same pairs. */
  baselines: { name: string; all: SubsetScore; sizeMisleading: SubsetScore }[];
  /** Null when no candidate carries a `hack` label. */
  criticalRecall: CriticalRecall | null;
  /** Passing candidates without a label that got a critical finding, out of all such candidates. */
  criticalFindings: { unlabelled: number; flagged: number };
  /** Mean position consistency over the groups that had one (graded by the model in ≥ 2 passes). */
  consistency: { mean: number | null; groups: number };
  perGroup: { promptTokens: number; completionTokens: number; requests: number };
  latencyMs: { mean: number; p50: number; p95: number; max: number };
  fallbacks: number;
  errors: number;
}

/** Candidate fields that are evaluation labels, never shown to a grader. */
const LABEL_FIELDS = ["hack"] as const;

/** The group as a grader may see it: no reference, no labels. */
export function blindGroup(group: Group): Group {
  const { reference: _reference, ...rest } = group;
  return {
    ...rest,
    candidates: group.candidates.map((c) => {
      const copy: Record<string, unknown> = { ...c };
      for (const field of LABEL_FIELDS) delete copy[field];
      return copy as Group["candidates"][number];
    }),
  };
}

export async function evaluateGrader(
  groups: Group[],
  grader: Grader,
  options: { concurrency?: number; now?: () => number } = {},
): Promise<{ report: EvalReport; results: GroupEval[] }> {
  const now = options.now ?? Date.now;
  const results: GroupEval[] = [];
  const grade = async (group: Group): Promise<GroupEval> => {
    const started = now();
    const outcome = await grader.grade(blindGroup(group)).then(
      (ranking) => ({ ranking }),
      (e: Error) => ({ error: e.message }),
    );
    const tiers = "ranking" in outcome ? outcome.ranking.ranking : undefined;
    const pairs = clearPairs(group);
    return {
      groupId: group.id,
      ...outcome,
      ...scorePairs(group, tiers, pairs),
      sizeMisleading: scorePairs(group, tiers, sizeMisleadingPairs(group, pairs)),
      latencyMs: now() - started,
    };
  };
  for await (const result of mapOrdered(groups, options.concurrency ?? 1, grade)) results.push(result);
  return { report: summarize(grader, groups, results), results };
}

/** Accuracy of tiers (one ranking per group, in `groups` order) on all clear pairs and the size-misleading ones. */
export function pairScores(
  groups: readonly Group[],
  rankingOf: (group: Group, index: number) => string[][] | undefined,
): { all: SubsetScore; sizeMisleading: SubsetScore } {
  const all: PairwiseScore = { hits: 0, pairs: 0 };
  const misleading: PairwiseScore = { hits: 0, pairs: 0 };
  groups.forEach((group, i) => {
    const tiers = rankingOf(group, i);
    const pairs = clearPairs(group);
    add(all, scorePairs(group, tiers, pairs));
    add(misleading, scorePairs(group, tiers, sizeMisleadingPairs(group, pairs)));
  });
  return { all: withAccuracy(all), sizeMisleading: withAccuracy(misleading) };
}

function add(total: PairwiseScore, score: PairwiseScore): void {
  total.hits += score.hits;
  total.pairs += score.pairs;
}

function withAccuracy(score: PairwiseScore): SubsetScore {
  return { ...score, accuracy: score.pairs ? score.hits / score.pairs : null };
}

/** Critical recall over labelled candidates, and critical findings on the unlabelled ones. */
export function criticalStats(
  groups: readonly Group[],
  rankings: readonly (Ranking | undefined)[],
): { recall: CriticalRecall | null; findings: { unlabelled: number; flagged: number } } {
  const recall: CriticalRecall = { labelled: 0, inLastTier: 0, byLabel: {} };
  const findings = { unlabelled: 0, flagged: 0 };
  groups.forEach((group, i) => {
    const ranking = rankings[i];
    const tiers = ranking?.ranking ?? [];
    const last = tiers.at(-1) ?? [];
    const ranked = tiers.flat().length;
    for (const c of group.candidates) {
      if (!c.passed) continue;
      const label = (c as Record<string, unknown>).hack;
      if (typeof label === "string") {
        recall.byLabel[label] ??= { labelled: 0, inLastTier: 0 };
        const entry = recall.byLabel[label];
        // The last tier counts only when it is below someone (or the candidate is alone).
        const caught = last.includes(c.id) && (tiers.length > 1 || ranked === 1);
        recall.labelled++;
        entry.labelled++;
        if (caught) {
          recall.inLastTier++;
          entry.inLastTier++;
        }
      } else {
        findings.unlabelled++;
        if ((ranking?.findings[c.id] ?? []).some((f) => f.severity === "critical")) findings.flagged++;
      }
    }
  });
  return { recall: recall.labelled ? recall : null, findings };
}

function summarize(grader: Grader, groups: Group[], results: GroupEval[]): EvalReport {
  const stats = results.map((r) => (r.ranking?.grader ?? {}) as Record<string, unknown>);
  const usage = stats.map((s) => (s.usage ?? {}) as Record<string, number | undefined>);
  const consistencies = stats.map((s) => s.consistency).filter((c): c is number => typeof c === "number");
  const pairs = sum(results.map((r) => r.pairs));
  const hits = sum(results.map((r) => r.hits));
  const n = Math.max(results.length, 1);
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const critical = criticalStats(
    groups,
    results.map((r) => r.ranking),
  );
  return {
    grader: grader.name,
    version: grader.version,
    groups: groups.length,
    groupsWithReference: groups.filter((g) => g.reference !== undefined).length,
    pairs,
    hits,
    accuracy: pairs ? hits / pairs : null,
    sizeMisleading: withAccuracy({
      hits: sum(results.map((r) => r.sizeMisleading.hits)),
      pairs: sum(results.map((r) => r.sizeMisleading.pairs)),
    }),
    baselines: BASELINES.map((b) => ({ name: b.name, ...pairScores(groups, (g) => b.rank(g)) })),
    criticalRecall: critical.recall,
    criticalFindings: critical.findings,
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
