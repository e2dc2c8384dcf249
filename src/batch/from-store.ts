import { InvariantError } from "../errors.ts";
import type { RunStore } from "../store/run-store.ts";
import type { BatchRow } from "./batch-row.ts";

/**
 * The batch of a step, assembled from the run store: every candidate of every kept group, in
 * generation order, with its verdict (by task and patch content), its advantage row and its
 * trajectory counts. Reading from the store rather than from memory makes the batch of a resumed
 * step identical to that of an uninterrupted one.
 *
 * Fails if a kept group lacks a verdict or advantages, or a trajectory lacks token or turn counts:
 * all are written before a step's batch is, so a gap means the step is not finished.
 */
export function batchRowsFromStore(store: RunStore, runId: string, stepIdx: number): BatchRow[] {
  const step = store.getStep(runId, stepIdx);
  if (!step) throw new InvariantError(`no step ${stepIdx} of run ${runId} in ${store.file}`);
  const advantages = new Map(store.stepAdvantages(step.id).map((a) => [`${a.groupId}\0${a.candidateId}`, a]));
  const rows: BatchRow[] = [];
  for (const group of store.getStepGroups(step.id)) {
    if (group.kept !== true) continue;
    for (const candidate of group.candidates) {
      const where = `group ${group.id} candidate ${candidate.id} (run ${runId}, step ${stepIdx})`;
      const verdict = store.findVerdict(group.taskId, candidate.patchSha256);
      if (!verdict) throw new InvariantError(`${where} has no verdict`);
      const advantage = advantages.get(`${group.id}\0${candidate.id}`);
      if (!advantage) throw new InvariantError(`${where} has no advantage row`);
      const { tokens, turns, finishReason, messagesRef, tokensRef } = candidate.trajectory;
      if (tokens === undefined || turns === undefined)
        throw new InvariantError(
          `${where} has no trajectory token or turn count; rollout sources must record them`,
        );
      rows.push({
        runId,
        step: stepIdx,
        taskId: group.taskId,
        groupId: group.id,
        candidateId: candidate.id,
        passed: verdict.passed,
        reward: advantage.reward,
        baseAdvantage: advantage.baseAdvantage,
        advantage: advantage.advantage,
        weight: advantage.weight,
        tier: advantage.tier,
        tokens,
        turns,
        finishReason: typeof finishReason === "string" && finishReason !== "" ? finishReason : null,
        messagesRef: messagesRef ?? null,
        tokensRef: tokensRef ?? null,
        patchSha256: candidate.patchSha256,
      });
    }
  }
  return rows;
}
