import { hostname } from "node:os";
import type { RedisOptions } from "bullmq";
import { DelayedError, type Job, Queue, QueueEvents, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { InvariantError, SandboxError } from "../errors.ts";
import {
  type AddOptions,
  type CloseOptions,
  DEFAULT_ATTEMPTS,
  DEFAULT_HAND_BACK,
  failureMessage,
  HandBack,
  type HandBackPolicy,
  handBackDelayMs,
  handedBackTooOften,
  isRetryable,
  type JobCounts,
  type JobHandler,
  type JobQueue,
  type JobSnapshot,
  type JobState,
  type ProcessOptions,
} from "./types.ts";

export interface BullmqQueueOptions {
  connection: RedisOptions;
  /** Key prefix in Redis, so that several gagar deployments can share one server. */
  prefix?: string;
  /**
   * A running job's lock lasts this long and is renewed at half of it; a job whose process died is
   * taken by another worker once its lock expires (and the next stalled check, every half of it, runs).
   */
  lockMs?: number;
  /** Back-off before attempt k+1 is `retryDelayMs · 2^(k-1)`. */
  retryDelayMs?: number;
  /** Finished jobs are kept this long (results readable, ids deduplicated), then dropped. */
  keepFinishedSec?: number;
  handBack?: Partial<HandBackPolicy>;
}

interface Payload {
  data: unknown;
  checkpoint?: unknown;
  /** Times a worker handed the job back (HandBack). */
  handBacks?: number;
}

interface Running {
  job: Job<Payload>;
  token: string;
  abort: AbortController;
}

const DEFAULT_LOCK_MS = 30_000;
/**
 * How often `waitFor` looks at the job itself, in case an event was missed (a reconnect, or the job
 * finishing between the first look and the subscription); events are what wake it normally.
 */
const WAIT_POLL_MS = 5000;

/**
 * Jobs in Redis through BullMQ: the queue `gagar serve --queue` fills and `gagar worker` processes
 * take from, on any number of machines. A job outlives the processes that add and run it; when a
 * worker dies mid-job (kill -9, a lost machine) its lock expires and the job goes back to waiting, to
 * be run again from its checkpoint by any worker.
 */
export class BullmqQueue implements JobQueue {
  readonly backend = "bullmq";
  private readonly queue: Queue<Payload>;
  private events: QueueEvents | undefined;
  private worker: Worker<Payload> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly running = new Map<string, Running>();

  constructor(
    readonly name: string,
    private readonly options: BullmqQueueOptions,
  ) {
    // The service's calls fail fast when Redis is away (a 503 to the client), instead of queueing up.
    this.queue = new Queue(name, {
      connection: { ...options.connection, maxRetriesPerRequest: 2 },
      prefix: options.prefix,
    });
    this.queue.on("error", () => {});
  }

  /** Resolves once Redis answers; rejects with a SandboxError naming the server otherwise. */
  async ready(timeoutMs = 10_000): Promise<void> {
    const { host, port } = this.options.connection;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new SandboxError(`cannot reach Redis at ${host}:${port} (waited ${timeoutMs} ms)`, true)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.queue.waitUntilReady(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async add(name: string, data: unknown, options: AddOptions): Promise<string> {
    const keep = this.options.keepFinishedSec ?? 24 * 3600;
    await this.queue.add(
      name,
      { data },
      {
        jobId: options.jobId,
        attempts: options.attempts ?? DEFAULT_ATTEMPTS,
        backoff: { type: "exponential", delay: this.options.retryDelayMs ?? 1000 },
        removeOnComplete: { age: keep },
        removeOnFail: { age: keep },
      },
    );
    return options.jobId;
  }

  async get(id: string): Promise<JobSnapshot | undefined> {
    // State first: it only moves forward, so the job read after it is at least as far along (read the
    // other way round, a job finishing in between would show "completed" without its result).
    const state = toState(await this.queue.getJobState(id));
    if (!state) return undefined;
    const job = await this.queue.getJob(id);
    if (!job) return undefined;
    const snapshot: JobSnapshot = {
      id,
      name: job.name,
      state,
      progress: job.progress === 0 ? undefined : job.progress,
      attempts: job.attemptsStarted,
      createdAt: job.timestamp,
    };
    if (job.data?.handBacks) snapshot.handBacks = job.data.handBacks;
    if (state === "completed") snapshot.result = job.returnvalue;
    if (job.failedReason) snapshot.error = job.failedReason;
    if (job.finishedOn && (state === "completed" || state === "failed")) snapshot.finishedAt = job.finishedOn;
    return snapshot;
  }

  async waitFor(id: string, timeoutMs: number): Promise<JobSnapshot | undefined> {
    const deadline = Date.now() + timeoutMs;
    await this.listen();
    let wake = () => {};
    const waiters = this.waiters.get(id) ?? new Set();
    this.waiters.set(id, waiters);
    const notify = () => wake();
    waiters.add(notify);
    try {
      for (;;) {
        const snapshot = await this.get(id);
        if (!snapshot || snapshot.state === "completed" || snapshot.state === "failed") return snapshot;
        const left = deadline - Date.now();
        if (left <= 0) return snapshot;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, WAIT_POLL_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      waiters.delete(notify);
      if (!waiters.size) this.waiters.delete(id);
    }
  }

  async retry(id: string): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job || (await job.getState()) !== "failed") return false;
    await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  async counts(): Promise<JobCounts> {
    const c = await this.queue.getJobCounts(
      "waiting",
      "prioritized",
      "delayed",
      "waiting-children",
      "active",
      "completed",
      "failed",
    );
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0) + (c["waiting-children"] ?? 0),
      active: c.active ?? 0,
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
    };
  }

  process(handler: JobHandler, options: ProcessOptions): void {
    if (this.worker) throw new InvariantError(`queue ${this.name} already has a handler`);
    const lockMs = this.options.lockMs ?? DEFAULT_LOCK_MS;
    this.worker = new Worker<Payload>(this.name, (job, token) => this.run(handler, job, token), {
      connection: { ...this.options.connection, maxRetriesPerRequest: null },
      prefix: this.options.prefix,
      concurrency: Math.max(1, options.concurrency),
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      // A job whose worker died twice is still run again; a third death fails it with BullMQ's reason.
      maxStalledCount: 2,
      name: `${hostname()}-${process.pid}`,
    });
    this.worker.on("error", () => {});
  }

  async close(options: CloseOptions = {}): Promise<void> {
    if (this.worker) {
      const closed = this.worker.close();
      const graceMs = options.graceMs ?? 0;
      if (this.running.size && graceMs > 0)
        await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
      for (const r of this.running.values()) r.abort.abort();
      await closed;
    }
    await this.events?.close();
    await this.queue.close();
  }

  private async run(handler: JobHandler, job: Job<Payload>, token: string | undefined): Promise<unknown> {
    if (!token) throw new InvariantError(`job ${job.id} of ${this.name} was given no lock token`);
    const id = job.id!;
    const abort = new AbortController();
    this.running.set(id, { job, token, abort });
    const payload = job.data;
    const handedBack = new Promise<never>((_, reject) => {
      abort.signal.addEventListener("abort", () => reject(abort.signal.reason), { once: true });
    });
    try {
      return await Promise.race([
        handler({
          id,
          name: job.name,
          data: payload.data,
          attempt: job.attemptsStarted,
          checkpoint: payload.checkpoint,
          signal: abort.signal,
          progress: (value) => job.updateProgress(value as object),
          saveCheckpoint: (value) => job.updateData({ ...payload, checkpoint: value }),
        }),
        handedBack,
      ]);
    } catch (error) {
      if (abort.signal.aborted) {
        // Shutdown past its grace time: back to waiting at once, for another worker to take.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (error instanceof HandBack) {
        // Delayed, not failed: attempts are counted by failures, so the job keeps all of its own.
        const policy = { ...DEFAULT_HAND_BACK, ...this.options.handBack };
        const handBacks = (payload.handBacks ?? 0) + 1;
        await job.updateData({ ...payload, handBacks });
        if (handBacks >= policy.maxHandBacks)
          throw new UnrecoverableError(handedBackTooOften(handBacks, error));
        await job.moveToDelayed(Date.now() + handBackDelayMs(policy, handBacks), token);
        throw new DelayedError();
      }
      if (!isRetryable(error)) throw new UnrecoverableError(failureMessage(error));
      throw new Error(failureMessage(error));
    } finally {
      this.running.delete(id);
    }
  }

  private async listen(): Promise<void> {
    if (!this.events) {
      this.events = new QueueEvents(this.name, {
        connection: { ...this.options.connection, maxRetriesPerRequest: null },
        prefix: this.options.prefix,
      });
      this.events.on("error", () => {});
      const wake = ({ jobId }: { jobId: string }) => {
        for (const w of this.waiters.get(jobId) ?? []) w();
      };
      this.events.on("completed", wake);
      this.events.on("failed", wake);
    }
    await this.events.waitUntilReady();
  }
}

function toState(state: string): JobState | undefined {
  switch (state) {
    case "completed":
    case "failed":
    case "active":
      return state;
    case "waiting":
    case "prioritized":
    case "delayed":
    case "waiting-children":
      return "waiting";
    default:
      return undefined;
  }
}
