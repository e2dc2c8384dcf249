import { type Arm, passingMask, subsetsOf, type TaskArms } from "../arms.ts";

/**
 * A synthetic task: arms with a verdict, tokens and (for passes) a quality score, lower is better.
 * Every subset of passing arms is ranked by quality, equal scores sharing a tier: what a grader
 * that judges each candidate on its own would produce.
 */
export function world(
  taskId: string,
  arms: { passed: boolean; tokens: number; quality?: number }[],
): TaskArms {
  const list: Arm[] = arms.map((a, i) => ({
    id: `${taskId}-r${i}`,
    passed: a.passed,
    reason: a.passed ? "passed" : "tests-failed",
    tokens: a.tokens,
  }));
  const tiersBySubset = new Map<number, number[]>();
  for (const mask of subsetsOf(passingMask(list), 2)) {
    const scores = [...new Set(arms.filter((_, i) => mask & (1 << i)).map((a) => a.quality ?? 0))].sort(
      (x, y) => x - y,
    );
    tiersBySubset.set(
      mask,
      arms.map((a, i) => (mask & (1 << i) ? scores.indexOf(a.quality ?? 0) : -1)),
    );
  }
  return { taskId, arms: list, tiersBySubset };
}
