import { describe, expect, it } from "vitest";
import { SamplingShortfallError, sampleInformativeGroups } from "./dynamic-sampler.ts";
import { expectedInformativeProbability, informativeProbability, isInformative } from "./informative.ts";
import { seededRandom } from "./random.ts";
import { selectTasks, taskWeight } from "./task-selection.ts";

const selection = { policy: "pass-rate" as const, groupSize: 8, explorationFloor: 0.02 };

describe("informative groups", () => {
  it("drops zero-variance groups only", () => {
    expect(isInformative([1, 1, 1])).toBe(false);
    expect(isInformative([0, 0])).toBe(false);
    expect(isInformative([1, 0, 0])).toBe(true);
    expect(isInformative([0.5, 0.7])).toBe(true);
  });

  it("computes P(informative) and its Beta expectation", () => {
    expect(informativeProbability(0.5, 2)).toBeCloseTo(0.5);
    expect(informativeProbability(0, 8)).toBe(0);
    // Uniform prior: E[p^n] = 1/(n+1).
    expect(expectedInformativeProbability(1, 1, 8)).toBeCloseTo(1 - 2 / 9);
    // A belief concentrated near p = 0.5 approaches the point value.
    expect(expectedInformativeProbability(5000, 5000, 4)).toBeCloseTo(informativeProbability(0.5, 4), 3);
  });
});

describe("selectTasks", () => {
  it("prefers tasks likely to be mixed, explores unseen ones, starves none", () => {
    const history = new Map([
      ["always-passes", { attempts: 64, passes: 64 }],
      ["always-fails", { attempts: 64, passes: 0 }],
      ["mixed", { attempts: 64, passes: 30 }],
    ]);
    const ids = ["always-passes", "always-fails", "mixed", "unseen"];
    expect(taskWeight(history.get("mixed"), selection)).toBeGreaterThan(taskWeight(undefined, selection));
    expect(taskWeight(undefined, selection)).toBeGreaterThan(
      taskWeight(history.get("always-fails"), selection),
    );
    const firstPicks = new Map<string, number>();
    const random = seededRandom(1);
    for (let i = 0; i < 2000; i++) {
      const [first] = selectTasks(ids, 1, history, selection, random);
      firstPicks.set(first!, (firstPicks.get(first!) ?? 0) + 1);
    }
    expect(firstPicks.get("mixed")!).toBeGreaterThan(firstPicks.get("always-passes")! * 5);
    expect(firstPicks.get("unseen")!).toBeGreaterThan(firstPicks.get("always-fails")! * 5);
    expect(firstPicks.get("always-fails")!).toBeGreaterThan(0);
  });

  it("returns distinct tasks, at most as many as exist, reproducibly", () => {
    const ids = ["a", "b", "c"];
    const picked = selectTasks(ids, 5, new Map(), selection, seededRandom(3));
    expect([...picked].sort()).toEqual(ids);
    expect(selectTasks(ids, 2, new Map(), selection, seededRandom(3))).toEqual(
      selectTasks(ids, 2, new Map(), selection, seededRandom(3)),
    );
  });
});

describe("sampleInformativeGroups", () => {
  const passRate: Record<string, number> = { easy: 1, hard: 0, mid1: 0.5, mid2: 0.5, mid3: 0.4 };
  function deps(seed: number) {
    const random = seededRandom(seed);
    return {
      taskIds: Object.keys(passRate),
      history: new Map(),
      random,
      generate: async (taskId: string) => {
        const rewards = Array.from({ length: 4 }, () => (random() < passRate[taskId]! ? 1 : 0));
        return { group: taskId, taskId, rewards, passes: rewards.filter((r) => r > 0).length };
      },
    };
  }
  const options = { batchGroups: 3, maxRounds: 10, oversample: 1.5, onShortfall: "fail" as const, selection };

  it("keeps exactly B informative groups, dropping zero-variance ones and the surplus", async () => {
    const result = await sampleInformativeGroups(deps(5), options);
    expect(result.kept).toHaveLength(3);
    expect(result.kept.every((g) => isInformative(g.rewards))).toBe(true);
    for (const g of result.groups.filter((x) => !x.kept)) {
      expect(g.dropReason).toBe(isInformative(g.rewards) ? "surplus" : "zero-variance");
    }
    expect(result.rolloutsGenerated).toBe(result.groups.length * 4);
    expect(result.rolloutsPerKeptGroup).toBe(result.rolloutsGenerated / 3);
  });

  it("fails or returns a partial batch when rounds run out, as configured", async () => {
    const only = { ...deps(1), taskIds: ["easy", "hard"] };
    await expect(sampleInformativeGroups(only, options)).rejects.toThrow(SamplingShortfallError);
    const partial = await sampleInformativeGroups(only, { ...options, onShortfall: "partial" });
    expect(partial).toMatchObject({ shortfall: true, rounds: 10, kept: [] });
  });

  it("tells each round, by the index its groups carry, what it generated, found informative and kept", async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const told: [number, Record<string, number>][] = [];
      const result = await sampleInformativeGroups(
        { ...deps(seed), onRound: (round, outcome) => told.push([round, { ...outcome }]) },
        { ...options, onShortfall: "partial" },
      );
      expect(told.map(([round]) => round)).toEqual([...Array(result.rounds).keys()]);
      let batch = 0;
      for (const [round, outcome] of told) {
        const groups = result.groups.filter((g) => g.round === round);
        batch += outcome.kept!;
        expect(outcome).toEqual({
          generated: groups.length,
          informative: groups.filter((g) => isInformative(g.rewards)).length,
          kept: groups.filter((g) => g.kept).length,
          surplus: groups.filter((g) => g.dropReason === "surplus").length,
          batch,
          wanted: options.batchGroups,
        });
      }
      expect(batch).toBe(result.kept.length);
    }
  });
});
