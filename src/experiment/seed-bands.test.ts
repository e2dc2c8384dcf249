import { describe, expect, it } from "vitest";
import type { SimulationRun } from "./length-simulation.ts";
import { finalBands, seedBands } from "./seed-bands.ts";

const run = (method: "GRPO" | "GAGAR", seed: number, tokens: number[]): SimulationRun => ({
  method,
  seed,
  points: tokens.map((t, step) => ({ step, tokens: t, passRate: 0, topTierShare: 0 })),
  finalPolicy: [],
});

describe("seedBands", () => {
  it("gives per method and step the mean, range and sample sd over seeds", () => {
    const runs = [run("GRPO", 0, [10, 20]), run("GRPO", 1, [14, 24]), run("GAGAR", 0, [10, 12])];
    const bands = seedBands(runs, "tokens");
    expect(bands).toEqual([
      { step: 0, method: "GRPO", mean: 12, lo: 10, hi: 14, sd: Math.sqrt(8) },
      { step: 1, method: "GRPO", mean: 22, lo: 20, hi: 24, sd: Math.sqrt(8) },
      { step: 0, method: "GAGAR", mean: 10, lo: 10, hi: 10, sd: 0 },
      { step: 1, method: "GAGAR", mean: 12, lo: 12, hi: 12, sd: 0 },
    ]);
    expect(finalBands(runs, "tokens").map((b) => [b.method, b.mean])).toEqual([
      ["GRPO", 22],
      ["GAGAR", 12],
    ]);
  });
});
