/**
 * The experiment's world: per task, the recorded rollouts a tabular policy chooses between ("arms"),
 * each with its real verdict and token count, and the static grader's tiers for every set of
 * distinct passing arms a group can contain. Built once by load-arms.ts; read by the pure
 * simulation.
 */
export interface Arm {
  /** The recorded rollout's id. */
  id: string;
  passed: boolean;
  /** The verdict's reason (`passed`, `tests-failed`, …), for the report. */
  reason: string;
  /** Tokens of the recorded trajectory. */
  tokens: number;
}

export interface TaskArms {
  taskId: string;
  arms: Arm[];
  /**
   * Subset (bit i set = passing arm i is in the group) → tier of each arm in it when the grader
   * ranks exactly those candidates (0 best), -1 for arms outside the subset. Present for every
   * subset of two or more passing arms; a lone passing arm is its own single tier.
   */
  tiersBySubset: ReadonlyMap<number, readonly number[]>;
}

/** The bit mask of a task's passing arms. */
export function passingMask(arms: readonly Arm[]): number {
  return arms.reduce((mask, arm, i) => (arm.passed ? mask | (1 << i) : mask), 0);
}

/** Every subset of `mask` with at least `min` bits, in increasing order. */
export function subsetsOf(mask: number, min: number): number[] {
  const out: number[] = [];
  for (let s = mask; s > 0; s = (s - 1) & mask) if (bitCount(s) >= min) out.push(s);
  return out.sort((a, b) => a - b);
}

export function bitCount(x: number): number {
  let n = 0;
  for (let v = x; v; v &= v - 1) n++;
  return n;
}

/** Arms in the best tier when the grader ranks all of the task's passing arms together. */
export function topTierArms(task: TaskArms): number[] {
  const all = passingMask(task.arms);
  if (bitCount(all) < 2) return task.arms.flatMap((a, i) => (a.passed ? [i] : []));
  const tiers = task.tiersBySubset.get(all)!;
  return tiers.flatMap((t, i) => (t === 0 ? [i] : []));
}
