/**
 * Aggregating the rankings of K passes (each over the same candidate ids, best tier first).
 *
 * Borda count with ties: in one ranking a candidate scores 1 for every candidate in a worse tier
 * and ½ for every other candidate in its own tier, so a ranking of n candidates hands out
 * n(n−1)/2 points whatever its ties. Scores are summed over passes; candidates with equal totals
 * share a tier. Kept in doubled integer points so equality is exact.
 */
export function bordaScores(rankings: string[][][]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    let below = ranking.reduce((n, tier) => n + tier.length, 0);
    for (const tier of ranking) {
      below -= tier.length;
      for (const id of tier) scores.set(id, (scores.get(id) ?? 0) + 2 * below + (tier.length - 1));
    }
  }
  return scores;
}

/** Tiers by total Borda score, best first; ids inside a tier sorted, so the result ignores input order. */
export function bordaTiers(rankings: string[][][]): string[][] {
  const byScore = new Map<number, string[]>();
  for (const [id, score] of bordaScores(rankings)) byScore.set(score, [...(byScore.get(score) ?? []), id]);
  return [...byScore.entries()].sort(([a], [b]) => b - a).map(([, ids]) => ids.sort());
}

/**
 * Position consistency: the share of (pass pair, candidate pair) comparisons in which two passes
 * order a candidate pair the same way (better, tied or worse). 1 means the shuffled orders changed
 * nothing; 1/3 is about what independent random rankings with ties give. Undefined (null) with
 * fewer than two passes or two candidates, where there is nothing to compare.
 */
export function positionConsistency(rankings: string[][][]): number | null {
  if (rankings.length < 2) return null;
  const tiers = rankings.map((r) => new Map(r.flatMap((tier, t) => tier.map((id) => [id, t] as const))));
  const ids = [...tiers[0]!.keys()].sort();
  if (ids.length < 2) return null;
  let agree = 0;
  let total = 0;
  for (let p = 0; p < tiers.length; p++) {
    for (let q = p + 1; q < tiers.length; q++) {
      for (let i = 0; i < ids.length; i++) {
        for (let j = i + 1; j < ids.length; j++) {
          const order = (m: Map<string, number>) => Math.sign(m.get(ids[i]!)! - m.get(ids[j]!)!);
          total++;
          if (order(tiers[p]!) === order(tiers[q]!)) agree++;
        }
      }
    }
  }
  return agree / total;
}
