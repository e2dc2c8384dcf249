import { describe, expect, it } from "vitest";
import { createLimiter } from "./limiter.ts";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe("createLimiter", () => {
  it("never runs more than its limit, even when new tasks arrive as slots are handed over", async () => {
    const limit = createLimiter(2);
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      running--;
    };
    // Tasks that, on finishing, immediately queue another, competing with the waiters for the slot.
    const chained = Array.from({ length: 6 }, () => limit(task).then(() => limit(task)));
    await Promise.all([...chained, ...Array.from({ length: 6 }, () => limit(task))]);
    expect(peak).toBe(2);
    expect(limit.active).toBe(0);
  });

  it("starts waiting tasks in FIFO order and frees the slot of a failed task", async () => {
    const limit = createLimiter(1);
    const order: number[] = [];
    const failing = limit(async () => {
      await tick();
      throw new Error("boom");
    });
    const rest = [1, 2, 3].map((n) => limit(async () => void order.push(n)));
    await expect(failing).rejects.toThrow("boom");
    await Promise.all(rest);
    expect(order).toEqual([1, 2, 3]);
  });
});
