/**
 * GAGAR sum-preserving advantage redistribution (ARCHITECTURE.md, "Formulas").
 *
 * P = passing candidates of a group, q_i ∈ [0,1] their normalized rank position (0 best), w_i their
 * weight (`linear`: w = 1 − λq; `bottom`: w = 1 − λ for the last tier only). Then
 *
 *     A'_i = A_i · w_i · (Σ_{j∈P} A_j L_j) / (Σ_{j∈P} A_j w_j L_j)   for i ∈ P;   A'_i = A_i otherwise,
 *
 * with L = 1 (`preserve: "sequence"`) or L = trajectory tokens (`preserve: "token"`, for token-mean
 * loss aggregation). Hence Σ_P A'·L = Σ_P A·L, failing rows are untouched and the group total stays
 * as the base estimator had it. With λ < 1 every w > 0, so when the passing advantages share a sign
 * each A' keeps the sign of A: a pass never drops below a fail. For equal base advantages (binary
 * rewards) a better tier gets A' ≥ a worse one.
 *
 * Nothing is redistributed — A' = A bit for bit, weight 1 — when the scheme is `none`, fewer than two
 * candidates pass, all ranked positions are equal (one tier or no ranking), the passing advantages
 * are all zero (an all-pass group), or they have mixed signs (non-binary rewards where some pass is
 * below the group mean: rescaling could then flip signs, so we refuse).
 */

export type RedistributionScheme = "linear" | "bottom" | "none";
export type PreserveMode = "sequence" | "token";

export interface RedistributionOptions {
  scheme: RedistributionScheme;
  /** Strength λ ∈ [0, 1): the worst position's weight is 1 − λ. */
  lambda: number;
  preserve: PreserveMode;
}

export type SkipReason =
  | "scheme-none"
  | "fewer-than-2-passing"
  | "single-tier"
  | "zero-passing-advantage"
  | "mixed-sign-passing-advantage";

export interface RedistributionInput {
  /** Base advantages from the estimator. */
  base: Float64Array;
  /** 1 for a passing candidate. */
  passing: Uint8Array;
  /** Normalized rank position q ∈ [0,1] of a passing candidate (ignored for failing ones). */
  position: Float64Array;
  /** Trajectory token counts; required for `preserve: "token"`. */
  tokens?: Float64Array;
}

/**
 * Redistributes within `[start, end)`, writing advantages and effective weights (A' = A · weight)
 * into `advantage` and `weight`. Returns why nothing moved, or null when credit was redistributed.
 */
export function redistributeRange(
  input: RedistributionInput,
  start: number,
  end: number,
  options: RedistributionOptions,
  advantage: Float64Array,
  weight: Float64Array,
): SkipReason | null {
  const { base, passing, position } = input;
  const { lambda, scheme } = options;
  const tokens = options.preserve === "token" ? input.tokens : undefined;
  // One fused, mostly branch-free pass gathers what the skip rules and the sums need (failing
  // candidates contribute zeros); a second pass writes the outputs.
  let k = 0;
  let positive = 0;
  let negative = 0;
  let qMin = Number.POSITIVE_INFINITY;
  let worst = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let linearWeighted = 0;
  let worstSum = 0;
  for (let i = start; i < end; i++) {
    const m = passing[i]!;
    const b = m * base[i]!;
    const q = position[i]!;
    k += m;
    positive += b > 0 ? 1 : 0;
    negative += b < 0 ? 1 : 0;
    const a = tokens === undefined ? b : b * tokens[i]!;
    sum += a;
    linearWeighted += a * (1 - lambda * q);
    if (m) {
      if (q < qMin) qMin = q;
      if (q > worst) {
        worst = q;
        worstSum = a;
      } else if (q === worst) worstSum += a;
    }
  }
  const distinct = k > 0 && qMin !== worst;
  let reason: SkipReason | null = null;
  if (scheme === "none") reason = "scheme-none";
  else if (k < 2) reason = "fewer-than-2-passing";
  else if (!distinct) reason = "single-tier";
  else if (positive === 0 && negative === 0) reason = "zero-passing-advantage";
  else if (positive > 0 && negative > 0) reason = "mixed-sign-passing-advantage";
  const weightedSum = scheme === "linear" ? linearWeighted : sum - lambda * worstSum;
  // Only reachable in token mode when every nonzero advantage has zero tokens.
  if (reason === null && weightedSum === 0) reason = "zero-passing-advantage";
  if (reason !== null) {
    for (let i = start; i < end; i++) {
      advantage[i] = base[i]!;
      weight[i] = 1;
    }
    return reason;
  }
  const scale = sum / weightedSum;
  const linear = scheme === "linear";
  for (let i = start; i < end; i++) {
    if (passing[i]) {
      const q = position[i]!;
      const w = (linear ? 1 - lambda * q : q === worst ? 1 - lambda : 1) * scale;
      weight[i] = w;
      advantage[i] = base[i]! * w;
    } else {
      advantage[i] = base[i]!;
      weight[i] = 1;
    }
  }
  return null;
}
