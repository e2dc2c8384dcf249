import { expectedInformativeProbability } from "./informative.ts";
import { type Random, shuffled } from "./random.ts";

export interface TaskHistory {
  attempts: number;
  passes: number;
}

export type SelectionPolicy = "uniform" | "pass-rate";

export interface SelectionOptions {
  policy: SelectionPolicy;
  /** Group size n. */
  groupSize: number;
  /** Every task keeps at least this weight, so a task once unlucky is still revisited. */
  explorationFloor: number;
}

/**
 * Chooses `count` distinct tasks (fewer if there are fewer tasks).
 *
 * `uniform` is plain DAPO: tasks in random order. `pass-rate` (beyond DAPO) keeps a Beta(1 + passes,
 * 1 + fails) belief per task from the store's history and samples without replacement with weight
 * E[P(informative)] + floor, so tasks likely to give mixed groups are preferred, unseen tasks are
 * explored (their expected value is high under the uniform prior), and none is starved.
 */
export function selectTasks(
  taskIds: readonly string[],
  count: number,
  history: ReadonlyMap<string, TaskHistory>,
  options: SelectionOptions,
  random: Random,
): string[] {
  if (options.policy === "uniform") return shuffled(taskIds, random).slice(0, count);
  const pool = taskIds.map((id) => ({ id, weight: taskWeight(history.get(id), options) }));
  const chosen: string[] = [];
  while (chosen.length < count && pool.length) {
    const total = pool.reduce((s, t) => s + t.weight, 0);
    let x = random() * total;
    let k = 0;
    while (k < pool.length - 1 && x >= pool[k]!.weight) x -= pool[k++]!.weight;
    chosen.push(pool[k]!.id);
    pool.splice(k, 1);
  }
  return chosen;
}

export function taskWeight(history: TaskHistory | undefined, options: SelectionOptions): number {
  const passes = history?.passes ?? 0;
  const fails = (history?.attempts ?? 0) - passes;
  return expectedInformativeProbability(1 + passes, 1 + fails, options.groupSize) + options.explorationFloor;
}
