import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveStaticOptions } from "./defaults.ts";
import { scoreEvidence, tiersOf } from "./score.ts";

const options = resolveStaticOptions();
const entry = (id: string, score: number, critical = false, equivalence = id) => ({
  id,
  score,
  critical,
  equivalence,
});

describe("scoreEvidence", () => {
  it("adds weights and per-line weights and notes critical findings", () => {
    expect(
      scoreEvidence(
        [
          { kind: "debug-leftover", message: "" },
          { kind: "outside-consensus", message: "", lines: 6 },
          { kind: "extra-file", message: "", lines: 2 },
        ],
        options,
      ),
    ).toEqual({ score: 3 + 1.5 + 1.5, critical: false });
    expect(scoreEvidence([{ kind: "test-tampering", message: "" }], options).critical).toBe(true);
    expect(scoreEvidence([], options)).toEqual({ score: 0, critical: false });
  });
});

describe("tiersOf", () => {
  it("orders by score, best first, with ids sorted inside a tier", () => {
    const { tiers } = tiersOf([entry("c", 3), entry("b", 0), entry("a", 0), entry("d", 1.5)], 0.5);
    expect(tiers).toEqual([["a", "b"], ["d"], ["c"]]);
  });

  it("ties scores closer than the margin", () => {
    expect(tiersOf([entry("a", 0), entry("b", 0.25), entry("c", 0.5)], 0.5).tiers).toEqual([
      ["a", "b"],
      ["c"],
    ]);
    expect(tiersOf([entry("a", 0), entry("b", 0.25)], 0).tiers).toEqual([["a"], ["b"]]);
  });

  it("puts every critical candidate in the last tier, whatever its score", () => {
    const { tiers } = tiersOf([entry("a", 0, true), entry("b", 9), entry("c", 0)], 0.5);
    expect(tiers).toEqual([["c"], ["b"], ["a"]]);
  });

  it("gives equivalent candidates one tier and their worst score", () => {
    const { tiers, scores } = tiersOf(
      [entry("a", 0, false, "k"), entry("b", 2, false, "k"), entry("c", 1)],
      0.5,
    );
    expect(tiers).toEqual([["c"], ["a", "b"]]);
    expect(scores.get("a")).toBe(2);
  });

  it("is invariant to input order (property)", () => {
    const item = fc.record({
      score: fc.integer({ min: 0, max: 20 }).map((x) => x / 4),
      critical: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), fc.integer(), (items, seed) => {
        const entries = items.map((x, i) => entry(`c${i}`, x.score, x.critical));
        const shuffled = [...entries].sort(
          (a, b) => ((a.id.charCodeAt(1) * 31 + seed) % 7) - ((b.id.charCodeAt(1) * 31 + seed) % 7),
        );
        expect(tiersOf(shuffled, 0.5).tiers).toEqual(tiersOf(entries, 0.5).tiers);
      }),
    );
  });
});
