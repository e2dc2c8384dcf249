import { existsSync } from "node:fs";
import { join } from "node:path";
import { Rollout } from "../contracts/rollout.ts";
import { ConfigError, InputError } from "../errors.ts";
import { readJsonlAll } from "../io/jsonl.ts";
import { seededRandom, shuffled } from "../sampling/random.ts";
import type { RolloutRequest, RolloutSource } from "./types.ts";

/**
 * Recorded rollouts (`<dir>/<task-id>.jsonl`), drawn without replacement: each epoch is a seeded
 * permutation of a task's rollouts cut into groups of n; when an epoch is used up a new one starts.
 * The k-th group of a task is a pure function of (seed, task, k), so a resumed step draws what the
 * interrupted one would have.
 */
export class ReplaySource implements RolloutSource {
  readonly name = "replay";
  private readonly cache = new Map<string, Rollout[]>();

  constructor(
    private readonly dir: string,
    private readonly seed: number,
  ) {}

  async generate({ taskId, count, drawIndex }: RolloutRequest): Promise<Rollout[]> {
    const all = await this.recorded(taskId);
    if (all.length < count) {
      throw new ConfigError(
        `task ${taskId} has ${all.length} recorded rollouts in ${this.dir}; a group of ${count} needs at least ${count} ` +
          "(lower groupSize or record more)",
      );
    }
    const perEpoch = Math.floor(all.length / count);
    const epoch = Math.floor(drawIndex / perEpoch);
    const offset = (drawIndex % perEpoch) * count;
    const order = shuffled(all, seededRandom(hash(`${this.seed}/${taskId}/${epoch}`)));
    return order.slice(offset, offset + count);
  }

  /** Every recorded rollout of the task, in file order (validated: right task, ids unique). */
  async recorded(taskId: string): Promise<Rollout[]> {
    const cached = this.cache.get(taskId);
    if (cached) return cached;
    const file = join(this.dir, `${taskId}.jsonl`);
    if (!existsSync(file))
      throw new ConfigError(`no recorded rollouts for task ${taskId}: ${file} does not exist`);
    const records = await readJsonlAll(file, Rollout);
    const seen = new Set<string>();
    for (const { value, line } of records) {
      if (value.taskId !== taskId) {
        throw new InputError(
          { file, line, field: "taskId" },
          `rollout of task "${value.taskId}" in the file of ${taskId}`,
        );
      }
      if (seen.has(value.id))
        throw new InputError({ file, line, field: "id" }, `duplicate rollout id "${value.id}"`);
      seen.add(value.id);
    }
    const rollouts = records.map((r) => r.value);
    this.cache.set(taskId, rollouts);
    return rollouts;
  }
}

/** FNV-1a: a stable 32-bit seed from a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
