import type { Statement } from "better-sqlite3";
import { Trajectory } from "../contracts/group.ts";
import { InvariantError } from "../errors.ts";
import { patchSha256 } from "./patch-sha.ts";
import { fromJson, type StoreContext, toJson } from "./store-context.ts";

export interface GroupInput {
  /** Unique within the store: include run and step in it (e.g. `<run>/s3/<task>/r0`). */
  id: string;
  taskId: string;
  /** The dynamic-sampling round that generated the group (0-based). */
  round: number;
}

export interface CandidateInput {
  id: string;
  patch: string;
  /** Turns, tokens, messagesRef and anything else the rollout source recorded. */
  trajectory?: Trajectory;
}

export interface StoredCandidate {
  id: string;
  patch: string;
  patchSha256: string;
  trajectory: Trajectory;
}

export interface StoredGroup {
  id: string;
  stepId: number;
  taskId: string;
  round: number;
  /** null until the dynamic-sampling filter decides; then whether the group went into the batch. */
  kept: boolean | null;
  dropReason: string | null;
  candidates: StoredCandidate[];
}

interface GroupRow {
  id: string;
  step_id: number;
  task_id: string;
  round: number;
  kept: 0 | 1 | null;
  drop_reason: string | null;
}

interface CandidateRow {
  group_id: string;
  id: string;
  patch: string;
  patch_sha256: string;
  trajectory: string;
}

/** Rollout groups of a step and their candidates, in the order they were generated. */
export class Groups {
  private readonly selectStepStatus: Statement<[number], { status: string }>;
  private readonly selectGroupStep: Statement<[string], { step_id: number }>;
  private readonly insertGroup: Statement<[string, number, string, number]>;
  private readonly insertCandidate: Statement<[string, string, number, string, string, string]>;
  private readonly selectGroups: Statement<[number], GroupRow>;
  private readonly selectCandidates: Statement<[number], CandidateRow>;
  private readonly updateKept: Statement<[number, string | null, string]>;

  constructor(private readonly ctx: StoreContext) {
    const { db } = ctx;
    this.selectStepStatus = db.prepare("SELECT status FROM steps WHERE id = ?");
    this.selectGroupStep = db.prepare("SELECT step_id FROM groups WHERE id = ?");
    this.insertGroup = db.prepare("INSERT INTO groups (id, step_id, task_id, round) VALUES (?, ?, ?, ?)");
    this.insertCandidate = db.prepare(
      "INSERT INTO candidates (group_id, id, pos, patch, patch_sha256, trajectory) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.selectGroups = db.prepare(
      "SELECT id, step_id, task_id, round, kept, drop_reason FROM groups WHERE step_id = ? ORDER BY seq",
    );
    this.selectCandidates = db.prepare(
      `SELECT c.group_id, c.id, c.patch, c.patch_sha256, c.trajectory
         FROM candidates c JOIN groups g ON g.id = c.group_id
        WHERE g.step_id = ? ORDER BY g.seq, c.pos`,
    );
    this.updateKept = db.prepare("UPDATE groups SET kept = ?, drop_reason = ? WHERE id = ?");
  }

  /**
   * Saves a generated group with its candidates in one transaction, so after a crash a group is
   * either whole or absent. Ids are never reused: saving an existing group id is a pipeline bug
   * (a resumed step reads `forStep` and skips the groups it finds).
   */
  save(stepId: number, group: GroupInput, candidates: readonly CandidateInput[]): StoredGroup {
    if (!Number.isInteger(group.round) || group.round < 0)
      throw new InvariantError(`group "${group.id}": round must be an integer ≥ 0, got ${group.round}`);
    const step = this.selectStepStatus.get(stepId);
    if (!step) throw new InvariantError(`no step with id ${stepId} in ${this.ctx.file}`);
    if (step.status !== "running")
      throw new InvariantError(`cannot add group "${group.id}" to step ${stepId}: the step is done`);
    const existing = this.selectGroupStep.get(group.id);
    if (existing)
      throw new InvariantError(`group "${group.id}" already exists (step id ${existing.step_id})`);
    const stored: StoredCandidate[] = candidates.map((c) => ({
      id: c.id,
      patch: c.patch,
      patchSha256: patchSha256(c.patch),
      trajectory: c.trajectory ?? {},
    }));
    this.ctx.db.transaction(() => {
      this.insertGroup.run(group.id, stepId, group.taskId, group.round);
      stored.forEach((c, pos) => {
        this.insertCandidate.run(group.id, c.id, pos, c.patch, c.patchSha256, toJson(c.trajectory));
      });
    })();
    return { ...group, stepId, kept: null, dropReason: null, candidates: stored };
  }

  /** The step's groups in insertion order, each with its candidates in insertion order. */
  forStep(stepId: number): StoredGroup[] {
    const groups = new Map<string, StoredGroup>();
    for (const row of this.selectGroups.all(stepId)) {
      groups.set(row.id, {
        id: row.id,
        stepId: row.step_id,
        taskId: row.task_id,
        round: row.round,
        kept: row.kept === null ? null : row.kept === 1,
        dropReason: row.drop_reason,
        candidates: [],
      });
    }
    for (const row of this.selectCandidates.all(stepId)) {
      groups.get(row.group_id)!.candidates.push({
        id: row.id,
        patch: row.patch,
        patchSha256: row.patch_sha256,
        trajectory: fromJson(
          this.ctx,
          row.trajectory,
          Trajectory,
          "candidates.trajectory",
          `group ${row.group_id} candidate ${row.id}`,
        ),
      });
    }
    return [...groups.values()];
  }

  /** Records the dynamic-sampling decision; a kept group has no drop reason. */
  mark(groupId: string, kept: boolean, dropReason?: string): void {
    if (kept && dropReason !== undefined)
      throw new InvariantError(`group "${groupId}" is kept but has drop reason "${dropReason}"`);
    const changed = this.updateKept.run(kept ? 1 : 0, dropReason ?? null, groupId).changes;
    if (changed === 0) throw new InvariantError(`no group "${groupId}" in ${this.ctx.file}`);
  }

  /** The step a group belongs to, or undefined for an unknown group. */
  stepOf(groupId: string): number | undefined {
    return this.selectGroupStep.get(groupId)?.step_id;
  }
}
