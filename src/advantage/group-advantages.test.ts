import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import { InputError } from "../errors.ts";
import { type AdvantageOptions, computeGroupAdvantages } from "./group-advantages.ts";

const DEFAULTS: AdvantageOptions = {
  estimator: "grpo",
  scheme: "linear",
  lambda: 0.5,
  preserve: "sequence",
  veto: "none",
};

interface Spec {
  passed: boolean[];
  /** Tier label per candidate (ties share a label); only passing candidates are ranked. */
  tierLabel: number[];
  tokens: number[];
  lambda: number;
  seed: number;
}

/** Seeded random groups: sizes 1..64, any mix of pass/fail, random tiers with ties. */
const specArb = fc.integer({ min: 1, max: 64 }).chain((n) =>
  fc.record({
    passed: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    tierLabel: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: n, maxLength: n }),
    tokens: fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: n, maxLength: n }),
    lambda: fc.double({ min: 0, max: 0.999, noNaN: true }),
    seed: fc.integer(),
  }),
);

function build(spec: Spec, names = (i: number) => `r${i}`): { group: Group; ranking: Ranking } {
  const group: Group = {
    schemaVersion: 1,
    id: "g",
    task: { id: "t", statement: "", language: "python" },
    candidates: spec.passed.map((passed, i) => ({
      id: names(i),
      patch: "",
      passed,
      reward: passed ? 1 : 0,
      trajectory: { tokens: spec.tokens[i] },
    })),
  };
  const byLabel = new Map<number, string[]>();
  spec.passed.forEach((p, i) => {
    if (!p) return;
    const label = spec.tierLabel[i]!;
    byLabel.set(label, [...(byLabel.get(label) ?? []), names(i)]);
  });
  const ranking: Ranking = {
    schemaVersion: 1,
    groupId: "g",
    ranking: [...byLabel.entries()].sort((a, b) => a[0] - b[0]).map(([, ids]) => ids),
    findings: {},
    grader: { name: "test", version: "0" },
  };
  return { group, ranking };
}

const RELATIVE = 1e-9;
function expectClose(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(RELATIVE * Math.max(1, Math.abs(expected)));
}

function sumOver(values: number[], mask: boolean[], scale: (i: number) => number = () => 1): number {
  return values.reduce((s, v, i) => (mask[i] ? s + v * scale(i) : s), 0);
}

describe("GAGAR redistribution: invariants over seeded random groups", () => {
  const params = { seed: 20261129, numRuns: 400 };
  for (const estimator of ["grpo", "drgrpo", "rloo"]) {
    for (const scheme of ["linear", "bottom"] as const) {
      it(`${estimator}/${scheme}: preserves the passing sum, leaves failing rows, keeps signs`, () => {
        fc.assert(
          fc.property(specArb, (spec) => {
            const { group, ranking } = build(spec);
            const { rows } = computeGroupAdvantages(group, ranking, {
              ...DEFAULTS,
              estimator,
              scheme,
              lambda: spec.lambda,
            });
            const base = rows.map((r) => r.baseAdvantage);
            const adv = rows.map((r) => r.advantage);
            expectClose(sumOver(adv, spec.passed), sumOver(base, spec.passed));
            expectClose(
              adv.reduce((a, b) => a + b, 0),
              base.reduce((a, b) => a + b, 0),
            );
            rows.forEach((r, i) => {
              if (!spec.passed[i]) expect(r.advantage).toBe(r.baseAdvantage);
              else expect(Math.sign(r.advantage)).toBe(Math.sign(r.baseAdvantage));
              expect(r.advantage).toBe(r.baseAdvantage * r.weight);
            });
            const worstPass = Math.min(...adv.filter((_, i) => spec.passed[i]));
            const bestFail = Math.max(...adv.filter((_, i) => !spec.passed[i]));
            if (Number.isFinite(worstPass) && Number.isFinite(bestFail)) {
              expect(worstPass).toBeGreaterThanOrEqual(bestFail);
            }
          }),
          params,
        );
      });
    }
  }

  it("is monotone in tier: a better tier never gets less", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const { group, ranking } = build(spec);
        for (const scheme of ["linear", "bottom"] as const) {
          const { rows } = computeGroupAdvantages(group, ranking, {
            ...DEFAULTS,
            scheme,
            lambda: spec.lambda,
          });
          const ranked = rows.filter((r) => r.tier !== null);
          for (const a of ranked)
            for (const b of ranked)
              if (a.tier! < b.tier!) expect(a.advantage).toBeGreaterThanOrEqual(b.advantage);
        }
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("is the base estimator bit for bit when all tied, unranked, or fewer than 2 pass", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const { group, ranking } = build(spec);
        const passing = group.candidates.filter((c) => c.passed).map((c) => c.id);
        const tied: Ranking = { ...ranking, ranking: passing.length ? [passing] : [] };
        for (const r of [tied, undefined]) {
          const { rows } = computeGroupAdvantages(group, r, DEFAULTS);
          for (const row of rows) {
            expect(Object.is(row.advantage, row.baseAdvantage)).toBe(true);
            expect(row.weight).toBe(1);
          }
        }
        if (passing.length < 2) {
          const { rows, skipped } = computeGroupAdvantages(group, ranking, DEFAULTS);
          expect(skipped).toBe("fewer-than-2-passing");
          for (const row of rows) expect(Object.is(row.advantage, row.baseAdvantage)).toBe(true);
        }
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it("is invariant to candidate order and names", () => {
    fc.assert(
      fc.property(specArb, fc.integer(), (spec, shuffleSeed) => {
        const { group, ranking } = build(spec);
        const reference = computeGroupAdvantages(group, ranking, { ...DEFAULTS, lambda: spec.lambda }).rows;
        const order = shuffle(
          spec.passed.map((_, i) => i),
          shuffleSeed,
        );
        const permuted: Spec = {
          ...spec,
          passed: order.map((i) => spec.passed[i]!),
          tierLabel: order.map((i) => spec.tierLabel[i]!),
          tokens: order.map((i) => spec.tokens[i]!),
        };
        const renamed = build(permuted, (j) => `cand-${order[j]! * 7 + 3}`);
        const rows = computeGroupAdvantages(renamed.group, renamed.ranking, {
          ...DEFAULTS,
          lambda: spec.lambda,
        }).rows;
        rows.forEach((row, j) => {
          const ref = reference[order[j]!]!;
          expectClose(row.advantage, ref.advantage);
          expect(row.tier).toBe(ref.tier);
        });
      }),
      { seed: 13, numRuns: 200 },
    );
  });

  it("token preservation keeps Σ A·L over passing candidates", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const { group, ranking } = build(spec);
        const { rows } = computeGroupAdvantages(group, ranking, {
          ...DEFAULTS,
          preserve: "token",
          lambda: spec.lambda,
        });
        const tokens = (i: number) => spec.tokens[i]!;
        const before = sumOver(
          rows.map((r) => r.baseAdvantage),
          spec.passed,
          tokens,
        );
        const after = sumOver(
          rows.map((r) => r.advantage),
          spec.passed,
          tokens,
        );
        expect(Math.abs(after - before)).toBeLessThanOrEqual(RELATIVE * Math.max(1, Math.abs(before)));
      }),
      { seed: 17, numRuns: 300 },
    );
  });
});

describe("computeGroupAdvantages", () => {
  const spec: Spec = {
    passed: [true, true, true, false],
    tierLabel: [0, 1, 2, 0],
    tokens: [100, 200, 300, 400],
    lambda: 0.5,
    seed: 0,
  };

  it("moves credit from the worst pass to the best, as the formula says", () => {
    const { group, ranking } = build(spec);
    const { rows, skipped } = computeGroupAdvantages(group, ranking, DEFAULTS);
    expect(skipped).toBeNull();
    // GRPO [1,1,1,0]: mean 0.75, std 0.5, so A = 0.25 / 0.5 for passes; w = 1, 0.75, 0.5.
    const a = 0.25 / (0.5 + 1e-6);
    const scale = 3 / 2.25;
    const expected = [a * 1 * scale, a * 0.75 * scale, a * 0.5 * scale, rows[3]!.baseAdvantage];
    rows.forEach((r, i) => {
      expectClose(r.advantage, expected[i]!);
    });
    expect(rows.map((r) => r.tier)).toEqual([0, 1, 2, null]);
  });

  it("bottom scheme down-weights only the last tier", () => {
    const { group, ranking } = build(spec);
    const { rows } = computeGroupAdvantages(group, ranking, { ...DEFAULTS, scheme: "bottom" });
    expect(rows[0]!.advantage).toBe(rows[1]!.advantage);
    expect(rows[2]!.advantage).toBeLessThan(rows[1]!.advantage);
  });

  it("says why nothing moved in an all-pass group", () => {
    const { group, ranking } = build({ ...spec, passed: [true, true, true, true], tierLabel: [0, 1, 2, 3] });
    const result = computeGroupAdvantages(group, ranking, DEFAULTS);
    expect(result.skipped).toBe("zero-passing-advantage");
    expect(result.rows.every((r) => r.advantage === 0)).toBe(true);
  });

  it("rejects a ranking that names an unknown candidate, naming the field", () => {
    const { group, ranking } = build(spec);
    const bad = { ...ranking, ranking: [["r0"], ["ghost"]] };
    const where = { file: "rankings.jsonl", line: 3 };
    expect(() => computeGroupAdvantages(group, bad, DEFAULTS, where)).toThrow(InputError);
    expect(() => computeGroupAdvantages(group, bad, DEFAULTS, where)).toThrow(
      /rankings.jsonl:3 \(field ranking\.1\.0\).*"ghost"/,
    );
  });

  it("ignores failing candidates in a ranking, with a warning", () => {
    const { group, ranking } = build(spec);
    const withFail = { ...ranking, ranking: [...ranking.ranking, ["r3"]] };
    const result = computeGroupAdvantages(group, withFail, DEFAULTS);
    expect(result.warnings.join()).toMatch(/failing r3; ignored/);
    expect(result.rows[3]!.tier).toBeNull();
    expect(result.rows.map((r) => r.advantage)).toEqual(
      computeGroupAdvantages(group, ranking, DEFAULTS).rows.map((r) => r.advantage),
    );
  });

  it("veto critical turns a flagged pass into a failure before computing advantages", () => {
    const { group, ranking } = build(spec);
    const flagged: Ranking = {
      ...ranking,
      findings: {
        r2: [
          {
            kind: "test-tampering",
            severity: "critical",
            file: "tests/t.py",
            line: 3,
            message: "deleted an assert",
          },
        ],
      },
    };
    const off = computeGroupAdvantages(group, flagged, DEFAULTS);
    expect(off.vetoed).toEqual([]);
    const on = computeGroupAdvantages(group, flagged, { ...DEFAULTS, veto: "critical" });
    expect(on.vetoed).toEqual(["r2"]);
    expect(on.rows[2]).toMatchObject({ reward: 0, tier: null, weight: 1 });
    expect(on.rows[2]!.advantage).toBeLessThan(0);
    expect(on.warnings.join()).toMatch(/vetoed r2/);
  });

  it("veto critical also reads the verifier's findings carried by the candidate", () => {
    const { group, ranking } = build(spec);
    const verified = {
      ...group,
      candidates: group.candidates.map((c) =>
        c.id === "r1"
          ? {
              ...c,
              findings: [
                { kind: "test-source-read", severity: "critical" as const, message: "read the tests" },
              ],
            }
          : c,
      ),
    };
    expect(computeGroupAdvantages(verified, ranking, DEFAULTS).vetoed).toEqual([]);
    const on = computeGroupAdvantages(verified, ranking, { ...DEFAULTS, veto: "critical" });
    expect(on.vetoed).toEqual(["r1"]);
    expect(on.rows[1]).toMatchObject({ reward: 0, tier: null });
  });

  it("places passing candidates a ranking leaves out mid-ranking, with a warning", () => {
    const { group } = build(spec);
    const partial: Ranking = { ...build(spec).ranking, ranking: [["r0"], ["r2"]] };
    const result = computeGroupAdvantages(group, partial, DEFAULTS);
    expect(result.warnings.join()).toMatch(/leaves out passing r1/);
    expect(result.rows[1]!.tier).toBeNull();
    expect(result.rows[0]!.advantage).toBeGreaterThan(result.rows[1]!.advantage);
    expect(result.rows[1]!.advantage).toBeGreaterThan(result.rows[2]!.advantage);
  });

  it("refuses token preservation without token counts", () => {
    const { group, ranking } = build(spec);
    delete group.candidates[1]!.trajectory;
    expect(() => computeGroupAdvantages(group, ranking, { ...DEFAULTS, preserve: "token" })).toThrow(
      /candidates\.1\.trajectory\.tokens/,
    );
  });

  it("refuses to rescale passing advantages of mixed sign", () => {
    const { group, ranking } = build(spec);
    // Partial-credit rewards: one pass below the group mean.
    group.candidates[0]!.reward = 1;
    group.candidates[1]!.reward = 0.9;
    group.candidates[2]!.reward = 0.1;
    group.candidates[3]!.reward = 0.8;
    const result = computeGroupAdvantages(group, ranking, DEFAULTS);
    expect(result.skipped).toBe("mixed-sign-passing-advantage");
    for (const r of result.rows) expect(r.advantage).toBe(r.baseAdvantage);
  });
});

/** Deterministic Fisher–Yates shuffle (mulberry32). */
function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
