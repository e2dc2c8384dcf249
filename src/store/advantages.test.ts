import { describe, expect, it } from "vitest";
import type { AdvantageRow } from "../contracts/advantage-row.ts";
import { InvariantError } from "../errors.ts";
import { memoryStore } from "./testing/fixtures.ts";

function row(groupId: string, candidateId: string, advantage: number): AdvantageRow {
  return { groupId, candidateId, reward: 1, baseAdvantage: advantage, advantage, weight: 1, tier: null };
}

function twoGroups() {
  const store = memoryStore();
  const run = store.createRun({});
  const step = store.beginStep(run, 0);
  store.saveGroup(step.id, { id: "g2", taskId: "t", round: 0 }, [
    { id: "b", patch: "1" },
    { id: "a", patch: "2" },
  ]);
  store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [{ id: "x", patch: "3" }]);
  return { store, run, step };
}

describe("advantages", () => {
  it("round-trip in group and candidate insertion order", () => {
    const { store, step } = twoGroups();
    const rows = [row("g1", "x", 0), row("g2", "a", -1), { ...row("g2", "b", 1.5), tier: 0, weight: 1.25 }];
    store.saveAdvantages(step.id, rows);
    expect(store.stepAdvantages(step.id)).toEqual([rows[2], rows[1], rows[0]]);
  });

  it("replace a group's rows when saved again and leave other groups alone", () => {
    const { store, step } = twoGroups();
    store.saveAdvantages(step.id, [row("g2", "a", -1), row("g2", "b", 1), row("g1", "x", 0)]);
    store.saveAdvantages(step.id, [row("g2", "a", -2), row("g2", "b", 2)]);
    store.saveAdvantages(step.id, [row("g2", "a", -2), row("g2", "b", 2)]);
    expect(store.stepAdvantages(step.id).map((r) => [r.candidateId, r.advantage])).toEqual([
      ["b", 2],
      ["a", -2],
      ["x", 0],
    ]);
  });

  it("refuse rows that do not cover a group's candidates exactly", () => {
    const { store, step } = twoGroups();
    expect(() => store.saveAdvantages(step.id, [row("g2", "a", 1)])).toThrow(/miss candidates b/);
    expect(() => store.saveAdvantages(step.id, [row("g1", "x", 1), row("g1", "x", 2)])).toThrow(
      /two advantage rows/,
    );
    expect(() => store.saveAdvantages(step.id, [row("g1", "y", 1)])).toThrow(/no candidate "y"/);
    expect(() => store.saveAdvantages(step.id, [row("g7", "x", 1)])).toThrow(/unknown group "g7"/);
    expect(store.stepAdvantages(step.id)).toEqual([]);
  });

  it("refuse rows of a group from another step, without writing any row", () => {
    const { store, run, step } = twoGroups();
    store.finishStep(step.id, {});
    const next = store.beginStep(run, 1);
    store.saveGroup(next.id, { id: "g3", taskId: "t", round: 0 }, [{ id: "y", patch: "4" }]);
    expect(() => store.saveAdvantages(next.id, [row("g3", "y", 0), row("g1", "x", 1)])).toThrow(
      InvariantError,
    );
    expect(store.stepAdvantages(next.id)).toEqual([]);
  });
});
