import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { estimatorNames, getEstimator } from "./estimators.ts";

function run(name: string, rewards: number[]): number[] {
  const out = new Float64Array(rewards.length);
  getEstimator(name)(rewards, 0, rewards.length, out);
  return [...out];
}

describe("estimators", () => {
  it("match ARCHITECTURE.md's test vector for rewards [1,0,0,0]", () => {
    const cases: [string, number, number][] = [
      ["grpo", 1.5, -0.5],
      ["drgrpo", 0.75, -0.25],
      ["rloo", 1.0, -1 / 3],
      ["grpo-pop", Math.sqrt(3), -1 / Math.sqrt(3)],
    ];
    for (const [name, pass, fail] of cases) {
      const [a, b, c, d] = run(name, [1, 0, 0, 0]);
      expect(a, name).toBeCloseTo(pass, 5);
      for (const x of [b, c, d]) expect(x, name).toBeCloseTo(fail, 5);
    }
  });

  it("treat a one-sample group as verl does (mean 0, std 1)", () => {
    expect(run("grpo", [1])[0]).toBe(1 / (1 + 1e-6));
    expect(run("drgrpo", [1])).toEqual([1]);
    expect(run("rloo", [0.5])).toEqual([0.5]);
    expect(run("grpo-pop", [1])).toEqual([0]);
  });

  it("give zero advantages to a zero-variance group", () => {
    for (const name of estimatorNames()) expect(run(name, [1, 1, 1]), name).toEqual([0, 0, 0]);
  });

  it("work on a sub-range of a flat batch without touching the rest", () => {
    const rewards = [9, 1, 0, 9];
    const out = new Float64Array([7, 7, 7, 7]);
    getEstimator("drgrpo")(rewards, 1, 3, out);
    expect([...out]).toEqual([7, 0.5, -0.5, 7]);
  });

  it("reject unknown names with the list of known ones", () => {
    expect(() => getEstimator("ppo")).toThrow(ConfigError);
    expect(() => getEstimator("ppo")).toThrow(/known: grpo, grpo-pop, drgrpo, rloo/);
  });
});
