import { describe, expect, it } from "vitest";
import { type Arm, bitCount, passingMask, subsetsOf, type TaskArms, topTierArms } from "./arms.ts";

const arm = (id: string, passed: boolean, tokens = 1000): Arm => ({
  id,
  passed,
  reason: passed ? "passed" : "tests-failed",
  tokens,
});

describe("arm subsets", () => {
  it("enumerates the subsets of a mask with at least k members", () => {
    expect(subsetsOf(0b1011, 2)).toEqual([0b0011, 0b1001, 0b1010, 0b1011]);
    expect(subsetsOf(0b111, 1)).toHaveLength(7);
    expect(subsetsOf(0b1, 2)).toEqual([]);
    expect(subsetsOf(0b1111111, 2)).toHaveLength(2 ** 7 - 7 - 1);
    expect(bitCount(0b1011)).toBe(3);
  });

  it("marks the passing arms, and takes the top tier from the ranking of all of them", () => {
    const arms = [arm("a", true), arm("b", false), arm("c", true), arm("d", true)];
    expect(passingMask(arms)).toBe(0b1101);
    const task: TaskArms = { taskId: "t", arms, tiersBySubset: new Map([[0b1101, [1, -1, 0, 0]]]) };
    expect(topTierArms(task)).toEqual([2, 3]);
    const lone: TaskArms = { taskId: "t", arms: [arm("a", false), arm("b", true)], tiersBySubset: new Map() };
    expect(topTierArms(lone)).toEqual([1]);
  });
});
