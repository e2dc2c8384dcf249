import { describe, expect, it } from "vitest";
import { memoryStore, ranking } from "./testing/fixtures.ts";

function withGroup() {
  const store = memoryStore();
  const step = store.beginStep(store.createRun({}), 0);
  store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [
    { id: "r1", patch: "a" },
    { id: "r2", patch: "b" },
  ]);
  return store;
}

describe("rankings", () => {
  it("round-trip per (group, grader key) and are not overwritten", () => {
    const store = withGroup();
    const staticRanking = ranking("g1", [["r2"], ["r1"]]);
    expect(store.findRanking("g1", "static@1")).toBeUndefined();
    expect(store.saveRanking("g1", "static@1", staticRanking)).toBe(true);
    expect(store.saveRanking("g1", "static@1", ranking("g1", [["r1"], ["r2"]]))).toBe(false);
    expect(store.findRanking("g1", "static@1")).toEqual(staticRanking);
  });

  it("keep another grader's ranking of the same group apart", () => {
    const store = withGroup();
    store.saveRanking("g1", "static@1", ranking("g1", [["r2"], ["r1"]]));
    expect(store.findRanking("g1", "agent@qwen")).toBeUndefined();
    expect(store.saveRanking("g1", "agent@qwen", ranking("g1", [["r1", "r2"]]))).toBe(true);
    expect(store.findRanking("g1", "agent@qwen")?.ranking).toEqual([["r1", "r2"]]);
  });

  it("list every ranking of a group, oldest first", () => {
    const store = withGroup();
    expect(store.groupRankings("g1")).toEqual([]);
    store.saveRanking("g1", "static@1", ranking("g1", [["r2"], ["r1"]]));
    store.saveRanking("g1", "agent@qwen", ranking("g1", [["r1", "r2"]]));
    expect(store.groupRankings("g1").map((r) => r.ranking)).toEqual([[["r2"], ["r1"]], [["r1", "r2"]]]);
    expect(store.groupRankings("g9")).toEqual([]);
  });

  it("refuse rankings of unknown or mismatched groups", () => {
    const store = withGroup();
    expect(() => store.saveRanking("g9", "k", ranking("g9", [["r1"]]))).toThrow(/no group "g9"/);
    expect(() => store.saveRanking("g1", "k", ranking("g2", [["r1"]]))).toThrow(/saved under group "g1"/);
  });
});
