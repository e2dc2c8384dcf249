import type { Statement } from "better-sqlite3";
import { Ranking } from "../contracts/ranking.ts";
import { InvariantError } from "../errors.ts";
import { fromJson, type StoreContext, toJson } from "./store-context.ts";

/**
 * Grader rankings keyed by (group, grader key). The key names the grader and everything that
 * changes its output (name, version, model, settings), so a resumed step reuses a ranking only
 * from the same grader, and switching graders re-grades.
 */
export class Rankings {
  private readonly select: Statement<[string, string], { ranking: string }>;
  private readonly insert: Statement<[string, string, string, string]>;
  private readonly groupExists: Statement<[string], { one: 1 }>;
  private readonly selectGroup: Statement<[string], { grader_key: string; ranking: string }>;

  constructor(private readonly ctx: StoreContext) {
    const { db } = ctx;
    this.select = db.prepare("SELECT ranking FROM rankings WHERE group_id = ? AND grader_key = ?");
    this.insert = db.prepare(
      "INSERT OR IGNORE INTO rankings (group_id, grader_key, ranking, created_at) VALUES (?, ?, ?, ?)",
    );
    this.groupExists = db.prepare("SELECT 1 AS one FROM groups WHERE id = ?");
    this.selectGroup = db.prepare(
      "SELECT grader_key, ranking FROM rankings WHERE group_id = ? ORDER BY created_at, rowid",
    );
  }

  find(groupId: string, graderKey: string): Ranking | undefined {
    const row = this.select.get(groupId, graderKey);
    return (
      row &&
      fromJson(this.ctx, row.ranking, Ranking, "rankings.ranking", `group ${groupId} grader ${graderKey}`)
    );
  }

  /**
   * Every ranking of a group, oldest first. A step ranks each group with one grader; a group has
   * more only when a run was resumed with another grader, and then the newest is the one used.
   */
  forGroup(groupId: string): Ranking[] {
    return this.selectGroup
      .all(groupId)
      .map((row) =>
        fromJson(
          this.ctx,
          row.ranking,
          Ranking,
          "rankings.ranking",
          `group ${groupId} grader ${row.grader_key}`,
        ),
      );
  }

  /** Saves a ranking unless that grader already ranked the group; returns whether this one was new. */
  save(groupId: string, graderKey: string, ranking: Ranking): boolean {
    if (ranking.groupId !== groupId)
      throw new InvariantError(`ranking of group "${ranking.groupId}" saved under group "${groupId}"`);
    if (!this.groupExists.get(groupId)) throw new InvariantError(`no group "${groupId}" in ${this.ctx.file}`);
    return this.insert.run(groupId, graderKey, toJson(ranking), this.ctx.now().toISOString()).changes === 1;
  }
}
