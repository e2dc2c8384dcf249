import type { Statement } from "better-sqlite3";
import { Verdict } from "../contracts/verdict.ts";
import { InvariantError } from "../errors.ts";
import { fromJson, type StoreContext, toJson } from "./store-context.ts";

/**
 * Verification results keyed by content: (task id, patch SHA-256). Byte-identical patches of one
 * task are verified once — within a group, across groups and across a resumed step.
 *
 * The stored verdict is the first one saved for that content, so its `rolloutId`/`groupId` name
 * the rollout that was actually run; callers reusing it for another rollout re-stamp those fields.
 */
export class Verdicts {
  private readonly select: Statement<[string, string], { verdict: string }>;
  private readonly insert: Statement<[string, string, string, string]>;
  private readonly count: Statement<[], { n: number }>;

  constructor(private readonly ctx: StoreContext) {
    const { db } = ctx;
    this.select = db.prepare("SELECT verdict FROM verdicts WHERE task_id = ? AND patch_sha256 = ?");
    this.insert = db.prepare(
      "INSERT OR IGNORE INTO verdicts (task_id, patch_sha256, verdict, created_at) VALUES (?, ?, ?, ?)",
    );
    this.count = db.prepare("SELECT count(*) AS n FROM verdicts");
  }

  find(taskId: string, patchSha: string): Verdict | undefined {
    const row = this.select.get(taskId, patchSha);
    return (
      row && fromJson(this.ctx, row.verdict, Verdict, "verdicts.verdict", `task ${taskId} patch ${patchSha}`)
    );
  }

  /**
   * Saves a verdict unless one exists for that content; returns whether this one was new.
   * `infra-error` verdicts are refused: they say nothing about the patch, and a resumed step must
   * verify that patch again rather than find the failure cached.
   */
  save(taskId: string, patchSha: string, verdict: Verdict): boolean {
    if (verdict.reason === "infra-error")
      throw new InvariantError(
        `refusing to store an infra-error verdict for task ${taskId} (rollout ${verdict.rolloutId}): ` +
          "infrastructure failures must be retried, not cached",
      );
    if (verdict.taskId !== taskId)
      throw new InvariantError(`verdict of task "${verdict.taskId}" saved under task "${taskId}"`);
    return this.insert.run(taskId, patchSha, toJson(verdict), this.ctx.now().toISOString()).changes === 1;
  }

  size(): number {
    return this.count.get()!.n;
  }
}
