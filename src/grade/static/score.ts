import { KINDS, type ResolvedStaticOptions } from "./defaults.ts";
import { compareText, type Evidence, evidenceScore } from "./evidence.ts";

/**
 * From evidence to tiers.
 *
 * score = Σ (weight + perLine × lines) over a candidate's evidence (defaults.ts); lower is better.
 * Tiers, best first:
 * - candidates with a critical finding share the last tier, whatever their scores;
 * - the others are sorted by score, and a new tier starts when a score reaches the current tier's
 *   lowest plus `tieMargin`, so equal (or nearly equal) scores share a tier;
 * - candidates with equivalent changes (the same lines, ignoring whitespace and position) share a tier:
 *   they are scored as a class, with the class's worst score.
 * Ids within a tier are sorted, so tiers do not depend on input order, and renaming candidates only
 * renames them in the output.
 */
export interface Scored {
  id: string;
  score: number;
  critical: boolean;
  /** Candidates with equal keys made equivalent changes. */
  equivalence: string;
}

export function scoreEvidence(
  evidence: readonly Evidence[],
  options: ResolvedStaticOptions,
): { score: number; critical: boolean } {
  let score = 0;
  for (const e of evidence) score += evidenceScore(e, options);
  // Rounded so that sums in different orders compare equal.
  return {
    score: Math.round(score * 1e6) / 1e6,
    critical: evidence.some((e) => KINDS[e.kind].severity === "critical"),
  };
}

export function tiersOf(
  scored: readonly Scored[],
  tieMargin: number,
): { tiers: string[][]; scores: Map<string, number> } {
  const byClass = new Map<string, Scored[]>();
  for (const s of scored) byClass.set(s.equivalence, [...(byClass.get(s.equivalence) ?? []), s]);
  const classes = [...byClass.values()].map((members) => ({
    ids: members.map((m) => m.id).sort(compareText),
    score: Math.max(...members.map((m) => m.score)),
    critical: members.some((m) => m.critical),
  }));
  const scores = new Map<string, number>();
  for (const c of classes) for (const id of c.ids) scores.set(id, c.score);

  const clean = classes.filter((c) => !c.critical).sort((a, b) => a.score - b.score);
  const tiers: { floor: number; ids: string[] }[] = [];
  for (const c of clean) {
    const tier = tiers.at(-1);
    if (tier && c.score - tier.floor < tieMargin - 1e-9) tier.ids.push(...c.ids);
    else tiers.push({ floor: c.score, ids: [...c.ids] });
  }
  const critical = classes.filter((c) => c.critical).flatMap((c) => c.ids);
  const out = tiers.map((t) => t.ids.sort(compareText));
  if (critical.length > 0) out.push(critical.sort(compareText));
  return { tiers: out, scores };
}
