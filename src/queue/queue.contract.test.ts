import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { BullmqQueue } from "./bullmq-queue.ts";
import { runQueueContract } from "./contract.test-suite.ts";
import { InProcessQueue } from "./in-process-queue.ts";
import { redisOptions } from "./redis-url.ts";
import { startRedis, type TestRedis } from "./testing/redis-server.ts";

runQueueContract({
  name: "in-process",
  open: async (options) => ({
    queue: new InProcessQueue("contract", { retryDelayMs: 10, handBack: options?.handBack }),
  }),
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

runQueueContract({
  name: "bullmq (a redis-server of the test's own)",
  open: async (options) => {
    const name = `contract-${randomBytes(4).toString("hex")}`;
    const make = async () => {
      const q = new BullmqQueue(name, {
        connection: redisOptions(redis.url),
        retryDelayMs: 10,
        lockMs: 2000,
        handBack: options?.handBack,
      });
      await q.ready();
      return q;
    };
    return { queue: await make(), another: make };
  },
});
