import { describe, expect, it } from "vitest";
import { tierPositions } from "./positions.ts";

describe("tierPositions", () => {
  it("spreads tiers over [0,1] with ties sharing their mean rank", () => {
    expect(tierPositions([1, 2, 1])).toEqual([0, 0.5, 1]);
    expect(tierPositions([1, 2])).toEqual([0, 0.75]);
    expect(tierPositions([3])).toEqual([0.5]);
    expect(tierPositions([1])).toEqual([0]);
  });
});
