import { describe, expect, it } from "vitest";
import { mapOrdered } from "./map-ordered.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mapOrdered", () => {
  it("yields in input order while running up to `limit` at once", async () => {
    let running = 0;
    let peak = 0;
    const out: number[] = [];
    for await (const x of mapOrdered([30, 5, 20, 1, 10], 3, async (ms) => {
      peak = Math.max(peak, ++running);
      await delay(ms);
      running--;
      return ms;
    })) {
      out.push(x);
    }
    expect(out).toEqual([30, 5, 20, 1, 10]);
    expect(peak).toBe(3);
  });

  it("throws the first failure in input order", async () => {
    const run = async () => {
      for await (const _ of mapOrdered([1, 2, 3], 3, async (x) => {
        await delay(10 - x * 3);
        if (x >= 2) throw new Error(`failed ${x}`);
        return x;
      })) {
        // consume
      }
    };
    await expect(run()).rejects.toThrow("failed 2");
  });
});
