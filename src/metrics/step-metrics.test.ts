import { describe, expect, it } from "vitest";
import { computeStepMetrics } from "./step-metrics.ts";
import { correlation, distribution } from "./summary-stats.ts";

describe("summary stats", () => {
  it("computes nearest-rank percentiles and correlation", () => {
    expect(distribution([5, 1, 3, 2, 4])).toEqual({ mean: 3, p50: 3, p90: 5 });
    expect(distribution([])).toEqual({ mean: 0, p50: 0, p90: 0 });
    expect(correlation([1, 2, 3], [2, 4, 6])).toBeCloseTo(1);
    expect(correlation([1, 1, 1], [2, 4, 6])).toBe(0);
  });
});

describe("computeStepMetrics", () => {
  it("reports pass rate, cost of sampling, lengths and the GRPO-vs-GAGAR length signal", () => {
    const row = (candidateId: string, base: number, adv: number) => ({
      groupId: "g",
      candidateId,
      reward: base > 0 ? 1 : 0,
      baseAdvantage: base,
      advantage: adv,
      weight: adv / base,
      tier: null,
    });
    const metrics = computeStepMetrics({
      candidates: [
        { groupKept: true, passed: true, tokens: 1000, turns: 5, patchLines: 4 },
        { groupKept: true, passed: true, tokens: 3000, turns: 15, patchLines: 40 },
        { groupKept: true, passed: false, tokens: 2000, turns: 10, patchLines: 0 },
        { groupKept: false, passed: false, tokens: 4000, turns: 20, patchLines: 2 },
      ],
      groupsGenerated: 2,
      groupsKept: 1,
      rounds: 1,
      advantages: [
        { row: row("a", 0.577, 0.77), passed: true, tokens: 1000 },
        { row: row("b", 0.577, 0.385), passed: true, tokens: 3000 },
        { row: row("c", -1.155, -1.155), passed: false, tokens: 2000 },
      ],
      verifications: { fresh: 3, reused: 1 },
      graderCalls: 1,
      graderFallbacks: 0,
      vetoed: 0,
      stageMs: { verify: 10 },
    });
    expect(metrics.passRate).toBe(0.5);
    expect(metrics.rolloutsPerKeptGroup).toBe(4);
    expect(metrics.passingPatchLines).toBe(22);
    expect(metrics.tokens.p90).toBe(4000);
    expect(metrics.advantage.passingStdGrpo).toBe(0);
    expect(metrics.advantage.tokenCorrelationGrpo).toBe(0);
    expect(metrics.advantage.tokenCorrelationGagar).toBeCloseTo(-1);
    expect(metrics.advantage.redistributedGroups).toBe(1);
  });
});
