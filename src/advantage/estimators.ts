import { ConfigError } from "../errors.ts";

/**
 * A group-relative advantage estimator: writes the advantages of `rewards[start..end)` into
 * `out[start..end)`. One signature for all, registered by name (as verl's `register_adv_est`),
 * working on flat arrays so a whole batch is one pass without per-group allocation.
 */
export type Estimator = (rewards: ArrayLike<number>, start: number, end: number, out: Float64Array) => void;

/** verl's epsilon in `(r - mean) / (std + eps)`. */
export const GRPO_EPSILON = 1e-6;

const registry = new Map<string, { estimator: Estimator; description: string }>();

/** Adds an estimator under a new name; a name already taken is refused (as `registerGrader` does). */
export function registerEstimator(name: string, description: string, estimator: Estimator): void {
  if (registry.has(name)) throw new ConfigError(`an estimator named "${name}" is already registered`);
  registry.set(name, { estimator, description });
}

/** The estimator registered under `name`; a ConfigError listing the known names otherwise. */
export function getEstimator(name: string): Estimator {
  const entry = registry.get(name);
  if (!entry) {
    throw new ConfigError(`unknown estimator "${name}"; known: ${estimatorNames().join(", ")}`);
  }
  return entry.estimator;
}

export function estimatorNames(): string[] {
  return [...registry.keys()];
}

function mean(rewards: ArrayLike<number>, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += rewards[i]!;
  return sum / (end - start);
}

function sumSquaredDeviations(rewards: ArrayLike<number>, start: number, end: number, m: number): number {
  let ss = 0;
  for (let i = start; i < end; i++) {
    const d = rewards[i]! - m;
    ss += d * d;
  }
  return ss;
}

/**
 * GRPO (as verl `compute_grpo_outcome_advantage`): `A_i = (r_i - mean) / (std + 1e-6)` with the
 * unbiased (n-1) std. A one-sample group uses mean 0 and std 1, as verl does, so `A = r / (1 + 1e-6)`.
 * Rewards [1,0,0,0] → 1.5, -0.5 (to 1e-5).
 */
export const grpo: Estimator = (rewards, start, end, out) => {
  const n = end - start;
  const m = n === 1 ? 0 : mean(rewards, start, end);
  const std = n === 1 ? 1 : Math.sqrt(sumSquaredDeviations(rewards, start, end, m) / (n - 1));
  const denom = std + GRPO_EPSILON;
  for (let i = start; i < end; i++) out[i] = (rewards[i]! - m) / denom;
};

/**
 * GRPO with the population (n) std, as ART computes it. Rewards [1,0,0,0] → 1.732, -0.577.
 * A one-sample group has std 0, so its advantage is 0.
 */
export const grpoPopulation: Estimator = (rewards, start, end, out) => {
  const n = end - start;
  const m = mean(rewards, start, end);
  const denom = Math.sqrt(sumSquaredDeviations(rewards, start, end, m) / n) + GRPO_EPSILON;
  for (let i = start; i < end; i++) out[i] = (rewards[i]! - m) / denom;
};

/**
 * Dr.GRPO (Liu et al. 2025; verl with `norm_adv_by_std_in_grpo=False`): `A_i = r_i - mean`, no std.
 * A one-sample group uses mean 0 (verl), so `A = r`. Rewards [1,0,0,0] → 0.75, -0.25.
 */
export const drgrpo: Estimator = (rewards, start, end, out) => {
  const m = end - start === 1 ? 0 : mean(rewards, start, end);
  for (let i = start; i < end; i++) out[i] = rewards[i]! - m;
};

/**
 * RLOO (leave-one-out baseline, as verl `compute_rloo_outcome_advantage`):
 * `A_i = r_i - mean_{j≠i} r_j = n/(n-1) · (r_i - mean)`. A one-sample group keeps `A = r` (verl).
 * Rewards [1,0,0,0] → 1.0, -1/3.
 */
export const rloo: Estimator = (rewards, start, end, out) => {
  const n = end - start;
  if (n === 1) {
    out[start] = rewards[start]!;
    return;
  }
  const m = mean(rewards, start, end);
  const scale = n / (n - 1);
  for (let i = start; i < end; i++) out[i] = scale * (rewards[i]! - m);
};

registerEstimator("grpo", "GRPO, unbiased std (verl default)", grpo);
registerEstimator("grpo-pop", "GRPO, population std (ART)", grpoPopulation);
registerEstimator("drgrpo", "Dr.GRPO, mean-centred, no std", drgrpo);
registerEstimator("rloo", "RLOO, leave-one-out baseline", rloo);
