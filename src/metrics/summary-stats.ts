/** Mean, median and 90th percentile (nearest-rank) of a sample; zeros for an empty one. */
export interface Distribution {
  mean: number;
  p50: number;
  p90: number;
}

export function distribution(values: readonly number[]): Distribution {
  if (!values.length) return { mean: 0, p50: 0, p90: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50: rank(0.5), p90: rank(0.9) };
}

/** Pearson correlation; 0 when either side has no variance (nothing to correlate). */
export function correlation(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}
