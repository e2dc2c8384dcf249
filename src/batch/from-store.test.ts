import { describe, expect, it } from "vitest";
import type { AdvantageRow } from "../contracts/advantage-row.ts";
import { InvariantError } from "../errors.ts";
import { patchSha256 } from "../store/patch-sha.ts";
import { memoryStore, verdict } from "../store/testing/fixtures.ts";
import { checkBatchRows } from "./batch-row.ts";
import { batchRowsFromStore } from "./from-store.ts";

function adv(groupId: string, candidateId: string, passed: boolean, advantage: number): AdvantageRow {
  return {
    groupId,
    candidateId,
    reward: passed ? 1 : 0,
    baseAdvantage: passed ? 1 : -1,
    advantage,
    weight: passed ? advantage : 1,
    tier: passed ? (advantage > 1 ? 0 : 1) : null,
  };
}

/** A step with one kept group (two passes, one fail) and one dropped all-fail group. */
function finishedStep() {
  const store = memoryStore();
  const run = store.createRun({});
  const step = store.beginStep(run, 4);
  const traj = (tokens: number, ref?: string) => ({
    tokens,
    turns: tokens / 100,
    messagesRef: ref,
    ...(ref ? { finishReason: "submit", tokensRef: `${ref}.tokens` } : {}),
  });
  store.saveGroup(step.id, { id: "kept", taskId: "calc", round: 0 }, [
    { id: "c", patch: "clean", trajectory: traj(1200, "t/c.json") },
    { id: "a", patch: "churn", trajectory: traj(2400) },
    { id: "b", patch: "broken", trajectory: traj(900, "t/b.json") },
  ]);
  store.saveGroup(step.id, { id: "dropped", taskId: "ini", round: 0 }, [
    { id: "x", patch: "nope", trajectory: traj(100) },
  ]);
  store.saveVerdict("calc", patchSha256("clean"), verdict("calc", "c", true));
  store.saveVerdict("calc", patchSha256("churn"), verdict("calc", "a", true));
  store.saveVerdict("calc", patchSha256("broken"), verdict("calc", "b", false));
  store.saveVerdict("ini", patchSha256("nope"), verdict("ini", "x", false));
  store.markGroup("kept", true);
  store.markGroup("dropped", false, "all-fail");
  store.saveAdvantages(step.id, [
    adv("kept", "b", false, -1),
    adv("kept", "a", true, 0.5),
    adv("kept", "c", true, 1.5),
  ]);
  return { store, run, step };
}

describe("batchRowsFromStore", () => {
  it("gives every candidate of the kept groups, in generation order, with verdict and advantage", () => {
    const { store, run } = finishedStep();
    const rows = batchRowsFromStore(store, run, 4);
    expect(checkBatchRows(rows)).toEqual(rows);
    expect(
      rows.map((r) => [
        r.candidateId,
        r.passed,
        r.advantage,
        r.tier,
        r.tokens,
        r.turns,
        r.finishReason,
        r.messagesRef,
        r.tokensRef,
      ]),
    ).toEqual([
      ["c", true, 1.5, 0, 1200, 12, "submit", "t/c.json", "t/c.json.tokens"],
      ["a", true, 0.5, 1, 2400, 24, null, null, null],
      ["b", false, -1, null, 900, 9, "submit", "t/b.json", "t/b.json.tokens"],
    ]);
    expect(rows[0]).toMatchObject({
      runId: run,
      step: 4,
      taskId: "calc",
      groupId: "kept",
      reward: 1,
      baseAdvantage: 1,
      weight: 1.5,
      patchSha256: patchSha256("clean"),
    });
  });

  it("takes the verdict by content, so a candidate whose patch another rollout verified is covered", () => {
    const { store, run, step } = finishedStep();
    store.saveGroup(step.id, { id: "dup", taskId: "calc", round: 1 }, [
      { id: "d1", patch: "clean", trajectory: { tokens: 10, turns: 1 } },
      { id: "d2", patch: "broken", trajectory: { tokens: 10, turns: 1 } },
    ]);
    store.markGroup("dup", true);
    store.saveAdvantages(step.id, [adv("dup", "d1", true, 1), adv("dup", "d2", false, -1)]);
    const rows = batchRowsFromStore(store, run, 4).filter((r) => r.groupId === "dup");
    expect(rows.map((r) => [r.candidateId, r.passed])).toEqual([
      ["d1", true],
      ["d2", false],
    ]);
  });

  it("refuses a step whose kept groups are not complete", () => {
    const { store, run, step } = finishedStep();
    store.saveGroup(step.id, { id: "late", taskId: "calc", round: 1 }, [
      { id: "n", patch: "new patch", trajectory: { tokens: 10, turns: 1 } },
    ]);
    store.markGroup("late", true);
    expect(() => batchRowsFromStore(store, run, 4)).toThrow(/group late candidate n .* has no verdict/);
    store.saveVerdict("calc", patchSha256("new patch"), verdict("calc", "n", true));
    expect(() => batchRowsFromStore(store, run, 4)).toThrow(/has no advantage row/);
    expect(() => batchRowsFromStore(store, run, 5)).toThrow(InvariantError);
  });

  it("refuses trajectories without token counts instead of inventing them", () => {
    const { store, run, step } = finishedStep();
    store.saveGroup(step.id, { id: "bare", taskId: "calc", round: 1 }, [{ id: "q", patch: "clean" }]);
    store.markGroup("bare", true);
    store.saveAdvantages(step.id, [adv("bare", "q", true, 0)]);
    expect(() => batchRowsFromStore(store, run, 4)).toThrow(/no trajectory token or turn count/);
  });
});
