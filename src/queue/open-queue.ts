import { BullmqQueue } from "./bullmq-queue.ts";
import { InProcessQueue } from "./in-process-queue.ts";
import { redisOptions } from "./redis-url.ts";
import type { JobQueue } from "./types.ts";

export interface OpenQueueOptions {
  /** `redis://…` for BullMQ on Redis; absent for the in-process queue. */
  url?: string;
  /** Redis key prefix (BullMQ only). */
  prefix?: string;
  /** Lock time of a running job, after which a dead worker's job is taken by another (BullMQ only). */
  lockMs?: number;
  retryDelayMs?: number;
}

/**
 * The queue named `name` on the backend the URL names: Redis (BullMQ) for `redis://` and
 * `rediss://`, this process's memory without a URL. Waits until Redis answers, so a wrong URL fails
 * here with the address rather than later on the first job.
 */
export async function openQueue(name: string, options: OpenQueueOptions = {}): Promise<JobQueue> {
  if (options.url === undefined) return new InProcessQueue(name, { retryDelayMs: options.retryDelayMs });
  const queue = new BullmqQueue(name, {
    connection: redisOptions(options.url),
    prefix: options.prefix,
    lockMs: options.lockMs,
    retryDelayMs: options.retryDelayMs,
  });
  try {
    await queue.ready();
  } catch (e) {
    await queue.close().catch(() => {});
    throw e;
  }
  return queue;
}
