import type { Statement } from "better-sqlite3";
import { AdvantageRow } from "../contracts/advantage-row.ts";
import { InvariantError } from "../errors.ts";
import { fromJson, type StoreContext, toJson } from "./store-context.ts";

/** Per-candidate advantages of a step, one row per candidate of each group that has them. */
export class Advantages {
  private readonly selectGroupStep: Statement<[string], { step_id: number }>;
  private readonly selectCandidateIds: Statement<[string], { id: string }>;
  private readonly deleteGroup: Statement<[number, string]>;
  private readonly insert: Statement<[number, string, string, string]>;
  private readonly selectStep: Statement<[number], { group_id: string; candidate_id: string; row: string }>;

  constructor(private readonly ctx: StoreContext) {
    const { db } = ctx;
    this.selectGroupStep = db.prepare("SELECT step_id FROM groups WHERE id = ?");
    this.selectCandidateIds = db.prepare("SELECT id FROM candidates WHERE group_id = ?");
    this.deleteGroup = db.prepare("DELETE FROM advantages WHERE step_id = ? AND group_id = ?");
    this.insert = db.prepare(
      "INSERT INTO advantages (step_id, group_id, candidate_id, row) VALUES (?, ?, ?, ?)",
    );
    this.selectStep = db.prepare(
      `SELECT a.group_id, a.candidate_id, a.row
         FROM advantages a
         JOIN groups g ON g.id = a.group_id
         JOIN candidates c ON c.group_id = a.group_id AND c.id = a.candidate_id
        WHERE a.step_id = ? ORDER BY g.seq, c.pos`,
    );
  }

  /**
   * Replaces the advantages of every group that appears in `rows`, in one transaction, so saving
   * the same rows again (a resumed step) changes nothing. Each group's rows must cover exactly its
   * stored candidates: advantages are a property of the whole group (their sum is what GAGAR keeps).
   */
  save(stepId: number, rows: readonly AdvantageRow[]): void {
    const byGroup = new Map<string, AdvantageRow[]>();
    for (const row of rows) {
      const list = byGroup.get(row.groupId);
      if (list) list.push(row);
      else byGroup.set(row.groupId, [row]);
    }
    for (const [groupId, list] of byGroup) this.checkGroup(stepId, groupId, list);
    this.ctx.db.transaction(() => {
      for (const [groupId, list] of byGroup) {
        this.deleteGroup.run(stepId, groupId);
        for (const row of list) this.insert.run(stepId, groupId, row.candidateId, toJson(row));
      }
    })();
  }

  /** The step's rows, ordered like `getStepGroups`: by group, then candidate, in insertion order. */
  forStep(stepId: number): AdvantageRow[] {
    return this.selectStep
      .all(stepId)
      .map((r) =>
        fromJson(
          this.ctx,
          r.row,
          AdvantageRow,
          "advantages.row",
          `step ${stepId} group ${r.group_id} candidate ${r.candidate_id}`,
        ),
      );
  }

  private checkGroup(stepId: number, groupId: string, rows: readonly AdvantageRow[]): void {
    const group = this.selectGroupStep.get(groupId);
    if (!group) throw new InvariantError(`advantages for unknown group "${groupId}" in ${this.ctx.file}`);
    if (group.step_id !== stepId)
      throw new InvariantError(`group "${groupId}" belongs to step id ${group.step_id}, not ${stepId}`);
    const expected = new Set(this.selectCandidateIds.all(groupId).map((c) => c.id));
    const given = new Set<string>();
    for (const row of rows) {
      if (given.has(row.candidateId))
        throw new InvariantError(
          `two advantage rows for candidate "${row.candidateId}" of group "${groupId}"`,
        );
      if (!expected.has(row.candidateId))
        throw new InvariantError(`group "${groupId}" has no candidate "${row.candidateId}"`);
      given.add(row.candidateId);
    }
    if (given.size !== expected.size) {
      const missing = [...expected].filter((id) => !given.has(id));
      throw new InvariantError(`advantages of group "${groupId}" miss candidates ${missing.join(", ")}`);
    }
  }
}
