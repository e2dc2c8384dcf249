import { describe, expect, it } from "vitest";
import { type LengthSettings, simulateLength, softmax } from "./length-simulation.ts";
import { world } from "./testing/worlds.ts";

const settings = (over: Partial<LengthSettings> = {}): LengthSettings => ({
  steps: 150,
  groupSize: 8,
  learningRate: 0.5,
  advantage: { estimator: "grpo", scheme: "linear", lambda: 0.5, preserve: "sequence", veto: "none" },
  ...over,
});

/** Two correct fixes (a short clean one and a long messy one) and two failures. */
const shortIsClean = [
  world("t", [
    { passed: true, tokens: 1000, quality: 0 },
    { passed: true, tokens: 3000, quality: 1 },
    { passed: false, tokens: 800 },
    { passed: false, tokens: 900 },
  ]),
];
const longIsClean = [
  world("t", [
    { passed: true, tokens: 1000, quality: 1 },
    { passed: true, tokens: 3000, quality: 0 },
    { passed: false, tokens: 800 },
    { passed: false, tokens: 900 },
  ]),
];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
function finalMean(tasks: typeof shortIsClean, method: "GRPO" | "GAGAR", metric: "tokens" | "topTierShare") {
  return mean(
    [0, 1, 2, 3, 4, 5, 6, 7].map(
      (seed) => simulateLength(tasks, method, seed, settings()).points.at(-1)![metric],
    ),
  );
}

describe("simulateLength", () => {
  it("starts from the uniform policy and reports its expectations", () => {
    const run = simulateLength(shortIsClean, "GRPO", 1, settings({ steps: 3 }));
    expect(run.points).toHaveLength(4);
    expect(run.points[0]).toEqual({
      step: 0,
      tokens: (1000 + 3000 + 800 + 900) / 4,
      passRate: 0.5,
      topTierShare: 0.5,
    });
    for (const p of run.finalPolicy) expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("is a pure function of the tasks, method, seed and settings", () => {
    const a = simulateLength(shortIsClean, "GAGAR", 7, settings());
    expect(simulateLength(shortIsClean, "GAGAR", 7, settings())).toEqual(a);
    expect(simulateLength(shortIsClean, "GAGAR", 8, settings())).not.toEqual(a);
  });

  it("gives GAGAR exactly GRPO's run when the grader ties every pass, or λ = 0", () => {
    const tied = [
      world("t", [
        { passed: true, tokens: 1000 },
        { passed: true, tokens: 3000 },
        { passed: false, tokens: 800 },
      ]),
    ];
    expect(simulateLength(tied, "GAGAR", 3, settings()).points).toEqual(
      simulateLength(tied, "GRPO", 3, settings()).points,
    );
    const off = settings({ advantage: { ...settings().advantage, lambda: 0 } });
    expect(simulateLength(shortIsClean, "GAGAR", 3, off).points).toEqual(
      simulateLength(shortIsClean, "GRPO", 3, off).points,
    );
  });

  it("learns to pass under both methods", () => {
    for (const method of ["GRPO", "GAGAR"] as const) {
      const run = simulateLength(shortIsClean, method, 0, settings());
      expect(run.points.at(-1)!.passRate).toBeGreaterThan(0.9);
    }
  });

  it("moves probability toward the grader's best tier under GAGAR only, whichever way length goes", () => {
    expect(finalMean(shortIsClean, "GAGAR", "topTierShare")).toBeGreaterThan(
      finalMean(shortIsClean, "GRPO", "topTierShare") + 0.1,
    );
    expect(finalMean(shortIsClean, "GAGAR", "tokens")).toBeLessThan(
      finalMean(shortIsClean, "GRPO", "tokens"),
    );
    // When the clean fix is the long one, GAGAR lengthens trajectories: the simulation reports what the data implies.
    expect(finalMean(longIsClean, "GAGAR", "tokens")).toBeGreaterThan(
      finalMean(longIsClean, "GRPO", "tokens"),
    );
  });
});

describe("softmax", () => {
  it("normalizes, and survives large logits", () => {
    const p = softmax(Float64Array.from([1000, 1000, 0]));
    expect([...p]).toEqual([0.5, 0.5, 0]);
  });
});
