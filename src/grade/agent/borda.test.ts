import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bordaScores, bordaTiers, positionConsistency } from "./borda.ts";
import { seededRandom, shuffle } from "./labels.ts";

/** A random tiered ranking of `ids`: a shuffled order cut into up to four tiers. */
const rankingOf = (ids: string[]) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.array(fc.nat(3), { minLength: ids.length, maxLength: ids.length }),
    )
    .map(([seed, tierOf]) => {
      const tiers = new Map<number, string[]>();
      shuffle(ids, seededRandom(String(seed))).forEach((id, i) => {
        tiers.set(tierOf[i]!, [...(tiers.get(tierOf[i]!) ?? []), id]);
      });
      return [...tiers.entries()].sort(([a], [b]) => a - b).map(([, tier]) => tier);
    });

const ids = ["a", "b", "c", "d"];

describe("bordaTiers", () => {
  it("ranks by summed Borda points: a wins twice, b once", () => {
    expect(
      bordaTiers([
        [["a"], ["b"], ["c"]],
        [["a"], ["c"], ["b"]],
        [["b"], ["a"], ["c"]],
      ]),
    ).toEqual([["a"], ["b"], ["c"]]);
  });

  it("puts equal totals in one tier, and a cycle ties everyone", () => {
    expect(
      bordaTiers([
        [["a"], ["b"]],
        [["b"], ["a"]],
      ]),
    ).toEqual([["a", "b"]]);
    expect(
      bordaTiers([
        [["a"], ["b"], ["c"]],
        [["b"], ["c"], ["a"]],
        [["c"], ["a"], ["b"]],
      ]),
    ).toEqual([["a", "b", "c"]]);
  });

  it("scores ties half: a tier of two beside a loser", () => {
    expect(bordaScores([[["a", "b"], ["c"]]])).toEqual(
      new Map([
        ["a", 3],
        ["b", 3],
        ["c", 0],
      ]),
    );
  });

  it("hands out n(n−1)/2 points per ranking (doubled), keeps every id once, and returns one ranking unchanged up to order in tiers", () => {
    fc.assert(
      fc.property(fc.array(rankingOf(ids), { minLength: 1, maxLength: 5 }), (rankings) => {
        const total = [...bordaScores(rankings).values()].reduce((s, x) => s + x, 0);
        expect(total).toBe(rankings.length * ids.length * (ids.length - 1));
        expect(bordaTiers(rankings).flat().sort()).toEqual(ids);
        expect(bordaTiers(rankings.slice(0, 1))).toEqual(rankings[0]!.map((t) => [...t].sort()));
      }),
    );
  });

  it("does not depend on the order of the passes", () => {
    fc.assert(
      fc.property(fc.array(rankingOf(ids), { minLength: 2, maxLength: 5 }), (rankings) => {
        expect(bordaTiers([...rankings].reverse())).toEqual(bordaTiers(rankings));
      }),
    );
  });
});

describe("positionConsistency", () => {
  it("is 1 for identical rankings and null when there is nothing to compare", () => {
    expect(
      positionConsistency([
        [["a"], ["b", "c"]],
        [["a"], ["c", "b"]],
      ]),
    ).toBe(1);
    expect(positionConsistency([[["a"], ["b"]]])).toBeNull();
    expect(positionConsistency([[["a"]], [["a"]]])).toBeNull();
  });

  it("counts agreeing pair orders: one swapped pair of three", () => {
    expect(
      positionConsistency([
        [["a"], ["b"], ["c"]],
        [["a"], ["c"], ["b"]],
      ]),
    ).toBeCloseTo(2 / 3);
    expect(
      positionConsistency([
        [["a"], ["b"]],
        [["b"], ["a"]],
        [["a"], ["b"]],
      ]),
    ).toBeCloseTo(1 / 3);
  });
});
