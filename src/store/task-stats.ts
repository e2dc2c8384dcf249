import type { Statement } from "better-sqlite3";
import { InvariantError } from "../errors.ts";
import type { StoreContext } from "./store-context.ts";

/** A task's history across all runs in the store: what pass-rate-aware sampling estimates from. */
export interface TaskStats {
  /** Rollouts verified. */
  attempts: number;
  /** Rollouts that passed. */
  passes: number;
  /** Groups generated. */
  groups: number;
  /** Groups that were informative (rewards not all equal: with 0/1 rewards, neither all-pass nor all-fail). */
  informativeGroups: number;
  /** Index of the step that last recorded an outcome. */
  lastStep: number;
}

export interface TaskOutcome {
  attempts: number;
  passes: number;
  informative: boolean;
}

interface StatsRow {
  task_id: string;
  attempts: number;
  passes: number;
  groups: number;
  informative_groups: number;
  last_step: number;
}

/**
 * Per-task counters, one upsert per group. Counters are not idempotent: record a group's outcome
 * in the same transaction as the decision that makes it final (`markGroup`), so a resumed step can
 * tell recorded groups (kept is set) from unrecorded ones.
 */
export class TaskStatsTable {
  private readonly upsert: Statement<[string, number, number, number, number]>;
  private readonly selectAll: Statement<[], StatsRow>;

  constructor(ctx: StoreContext) {
    this.upsert = ctx.db.prepare(
      `INSERT INTO task_stats (task_id, attempts, passes, groups, informative_groups, last_step)
       VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET
         attempts = attempts + excluded.attempts,
         passes = passes + excluded.passes,
         groups = groups + 1,
         informative_groups = informative_groups + excluded.informative_groups,
         last_step = excluded.last_step`,
    );
    this.selectAll = ctx.db.prepare("SELECT * FROM task_stats ORDER BY task_id");
  }

  record(taskId: string, outcome: TaskOutcome, stepIdx: number): void {
    const { attempts, passes, informative } = outcome;
    if (!Number.isInteger(attempts) || !Number.isInteger(passes) || passes < 0 || passes > attempts)
      throw new InvariantError(`task ${taskId}: impossible outcome ${passes} passes of ${attempts} attempts`);
    this.upsert.run(taskId, attempts, passes, informative ? 1 : 0, stepIdx);
  }

  all(): Map<string, TaskStats> {
    const stats = new Map<string, TaskStats>();
    for (const row of this.selectAll.all()) {
      stats.set(row.task_id, {
        attempts: row.attempts,
        passes: row.passes,
        groups: row.groups,
        informativeGroups: row.informative_groups,
        lastStep: row.last_step,
      });
    }
    return stats;
  }
}
