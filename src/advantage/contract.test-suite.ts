import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Estimator } from "./estimators.ts";

/**
 * What every group-relative estimator keeps (estimators.ts), whatever its formula:
 * - it writes exactly `out[start..end)`, finite numbers for finite rewards, and nothing else;
 * - a group of two or more is centred: its advantages sum to zero (the redistribution's
 *   sum-preservation is stated against this sum);
 * - a zero-variance group of two or more gets zero advantages (DAPO drops it; nothing to learn);
 * - candidates are exchangeable: reordering the rewards reorders the advantages the same way;
 * - a higher reward never gets a lower advantage, and adding a constant to every reward of a group
 *   changes nothing (only differences within the group count).
 */
export function estimatorContract(name: string, estimator: Estimator): void {
  const reward = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true });
  const group = fc.array(reward, { minLength: 2, maxLength: 12 });
  const run = (rewards: number[]) => {
    const out = new Float64Array(rewards.length);
    estimator(rewards, 0, rewards.length, out);
    return [...out];
  };
  const scale = (rewards: number[]) => 1 + Math.max(...rewards.map(Math.abs));
  /** Tolerance for float differences of estimators that divide by a tiny standard deviation. */
  const near = (a: number, b: number, rewards: number[]) =>
    Math.abs(a - b) <= 1e-6 * (1 + Math.abs(a) + Math.abs(b)) * scale(rewards);

  describe(`estimator contract: ${name}`, () => {
    it("writes exactly its range of the output, finite numbers only", () => {
      fc.assert(
        fc.property(
          fc.array(reward, { minLength: 1, maxLength: 12 }),
          fc.nat(3),
          fc.nat(3),
          (rewards, before, after) => {
            const flat = [...new Array(before).fill(7), ...rewards, ...new Array(after).fill(7)];
            const out = new Float64Array(flat.length).fill(-3);
            estimator(flat, before, before + rewards.length, out);
            for (let i = 0; i < flat.length; i++) {
              if (i < before || i >= before + rewards.length) expect(out[i]).toBe(-3);
              else expect(Number.isFinite(out[i])).toBe(true);
            }
          },
        ),
      );
    });

    it("centres a group: its advantages sum to zero", () => {
      fc.assert(
        fc.property(group, (rewards) => {
          const sum = run(rewards).reduce((a, b) => a + b, 0);
          const magnitude = run(rewards).reduce((a, b) => a + Math.abs(b), 0);
          expect(Math.abs(sum)).toBeLessThanOrEqual(1e-9 * (1 + magnitude) * scale(rewards));
        }),
      );
    });

    it("gives a zero-variance group zero advantages (to rounding)", () => {
      fc.assert(
        fc.property(reward, fc.integer({ min: 2, max: 12 }), (r, n) => {
          for (const a of run(new Array(n).fill(r)))
            expect(Math.abs(a)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(r)));
        }),
      );
      expect(run([1, 1, 1])).toEqual([0, 0, 0]);
    });

    it("treats candidates as exchangeable", () => {
      fc.assert(
        fc.property(
          group.chain((rewards) =>
            fc.tuple(
              fc.constant(rewards),
              fc.shuffledSubarray(
                rewards.map((_, i) => i),
                { minLength: rewards.length },
              ),
            ),
          ),
          ([rewards, order]) => {
            const advantages = run(rewards);
            const reordered = run(order.map((i) => rewards[i]!));
            order.forEach((from, to) => {
              expect(near(reordered[to]!, advantages[from]!, rewards)).toBe(true);
            });
          },
        ),
      );
    });

    it("orders advantages as the rewards and ignores a shift of the whole group", () => {
      fc.assert(
        fc.property(group, fc.integer({ min: -5, max: 5 }), (rewards, shift) => {
          const advantages = run(rewards);
          for (let i = 0; i < rewards.length; i++)
            for (let j = 0; j < rewards.length; j++)
              if (rewards[i]! > rewards[j]!) expect(advantages[i]! >= advantages[j]! - 1e-9).toBe(true);
          const shifted = run(rewards.map((r) => r + shift));
          shifted.forEach((a, i) => {
            expect(near(a, advantages[i]!, rewards)).toBe(true);
          });
        }),
      );
    });
  });
}
