import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Group } from "../contracts/group.ts";
import { computeBatchAdvantages } from "./batch.ts";
import { computeGroupAdvantages } from "./group-advantages.ts";
import { tierPositions } from "./positions.ts";

describe("computeBatchAdvantages", () => {
  it("equals computeGroupAdvantages group by group", () => {
    const groupArb = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 })), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.array(groupArb, { minLength: 1, maxLength: 20 }), (groups) => {
        const rewards: number[] = [];
        const passing: number[] = [];
        const position: number[] = [];
        const offsets = [0];
        const expected: number[] = [];
        groups.forEach((members, g) => {
          const labels = [...new Set(members.filter(([p]) => p).map(([, t]) => t))].sort();
          const sizes = labels.map((l) => members.filter(([p, t]) => p && t === l).length);
          const q = tierPositions(sizes);
          const group: Group = {
            schemaVersion: 1,
            id: `g${g}`,
            task: { id: "t", statement: "", language: "python" },
            candidates: members.map(([p], i) => ({ id: `c${i}`, patch: "", passed: p, reward: p ? 1 : 0 })),
          };
          const ranking = {
            schemaVersion: 1 as const,
            groupId: group.id,
            ranking: labels.map((l) => members.flatMap(([p, t], i) => (p && t === l ? [`c${i}`] : []))),
            findings: {},
            grader: { name: "t", version: "0" },
          };
          const rows = computeGroupAdvantages(group, ranking, {
            estimator: "grpo",
            scheme: "linear",
            lambda: 0.5,
            preserve: "sequence",
            veto: "none",
          }).rows;
          members.forEach(([p, t]) => {
            rewards.push(p ? 1 : 0);
            passing.push(p ? 1 : 0);
            position.push(p ? q[labels.indexOf(t)]! : 0);
          });
          expected.push(...rows.map((r) => r.advantage));
          offsets.push(rewards.length);
        });
        const batch = computeBatchAdvantages(
          {
            rewards: Float64Array.from(rewards),
            passing: Uint8Array.from(passing),
            position: Float64Array.from(position),
            offsets: Int32Array.from(offsets),
          },
          { estimator: "grpo", scheme: "linear", lambda: 0.5, preserve: "sequence" },
        );
        expect([...batch.advantage]).toEqual(expected);
      }),
      { seed: 5, numRuns: 200 },
    );
  });
});

describe("computeBatchAdvantages buffers", () => {
  it("reuses caller buffers and refuses ones too small", () => {
    const input = {
      rewards: Float64Array.from([1, 0, 1, 1]),
      passing: Uint8Array.from([1, 0, 1, 1]),
      position: Float64Array.from([0, 0, 0, 1]),
      offsets: Int32Array.from([0, 2, 4]),
    };
    const options = {
      estimator: "drgrpo",
      scheme: "linear" as const,
      lambda: 0.5,
      preserve: "sequence" as const,
    };
    const buffers = {
      base: new Float64Array(4),
      advantage: new Float64Array(4),
      weight: new Float64Array(4),
    };
    const result = computeBatchAdvantages(input, options, buffers);
    expect(result.advantage).toBe(buffers.advantage);
    expect([...result.advantage]).toEqual([0.5, -0.5, 0, 0]);
    expect(() => computeBatchAdvantages(input, options, { ...buffers, weight: new Float64Array(3) })).toThrow(
      /weight holds 3 < 4/,
    );
  });
});
