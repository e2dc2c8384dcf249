/**
 * Normalized rank positions for tiers (best first): the m ranked candidates occupy ranks
 * 0..m−1, a tier shares the mean of its ranks, and q = rank / (m − 1) ∈ [0, 1] (0 best, 1 worst).
 * Tiers [[a], [b, c], [d]] → a 0, b and c 0.5, d 1. A single candidate gets 0.
 */
export function tierPositions(tierSizes: readonly number[]): number[] {
  const m = tierSizes.reduce((a, b) => a + b, 0);
  const positions: number[] = [];
  let start = 0;
  for (const size of tierSizes) {
    const meanRank = start + (size - 1) / 2;
    positions.push(m > 1 ? meanRank / (m - 1) : 0);
    start += size;
  }
  return positions;
}

/** Where a passing candidate the ranking left out sits: the middle, so it neither gains nor loses much. */
export const UNRANKED_POSITION = 0.5;
