/**
 * DAPO's dynamic-sampling filter (Yu et al. 2025): a group whose rewards all equal each other
 * (all pass or all fail) has zero advantage everywhere and teaches nothing, so it is dropped.
 */
export function isInformative(rewards: readonly number[]): boolean {
  return rewards.some((r) => r !== rewards[0]);
}

/**
 * Probability that a group of n rollouts of a task with pass rate p is informative (mixed):
 * 1 − pⁿ − (1 − p)ⁿ.
 */
export function informativeProbability(p: number, n: number): number {
  return 1 - p ** n - (1 - p) ** n;
}

/**
 * The same probability in expectation over a Beta(α, β) belief about p, in closed form:
 * E[pⁿ] = Π_{i<n} (α+i)/(α+β+i). Unseen tasks (α = β = 1) get 1 − 2/(n+1), high enough that
 * they are explored before tasks known to be all-pass or all-fail.
 */
export function expectedInformativeProbability(alpha: number, beta: number, n: number): number {
  let allPass = 1;
  let allFail = 1;
  for (let i = 0; i < n; i++) {
    allPass *= (alpha + i) / (alpha + beta + i);
    allFail *= (beta + i) / (alpha + beta + i);
  }
  return 1 - allPass - allFail;
}
