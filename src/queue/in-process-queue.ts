import { EventEmitter } from "node:events";
import { InvariantError } from "../errors.ts";
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
  type ProcessOptions,
} from "./types.ts";

export interface InProcessQueueOptions {
  /** Back-off before attempt k+1 is `retryDelayMs · 2^(k-1)`. */
  retryDelayMs?: number;
  /** Finished jobs kept (oldest dropped first), so results stay readable and ids stay deduplicated. */
  keepFinished?: number;
  now?: () => number;
  handBack?: Partial<HandBackPolicy>;
}

interface Job {
  snapshot: JobSnapshot;
  data: unknown;
  maxAttempts: number;
  checkpoint: unknown;
  /** Times the handler handed the job back (HandBack); they use up no attempt. */
  handBacks: number;
  /** Bumped whenever an attempt is abandoned, so that its late end is ignored. */
  generation: number;
  abort?: AbortController;
}

/**
 * Jobs in this process's memory: the embedded default of `gagar serve` (one machine, nothing to set
 * up). Same semantics as the Redis queue except that nothing outlives the process.
 */
export class InProcessQueue implements JobQueue {
  readonly backend = "in-process";
  private readonly jobs = new Map<string, Job>();
  private readonly waiting: string[] = [];
  private readonly finished: string[] = [];
  private readonly events = new EventEmitter();
  private readonly active = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler: JobHandler | undefined;
  private concurrency = 0;
  private running = 0;
  private closed = false;
  private readonly retryDelayMs: number;
  private readonly keepFinished: number;
  private readonly now: () => number;
  private readonly handBack: HandBackPolicy;

  constructor(
    readonly name: string,
    options: InProcessQueueOptions = {},
  ) {
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.keepFinished = options.keepFinished ?? 10_000;
    this.now = options.now ?? Date.now;
    this.handBack = { ...DEFAULT_HAND_BACK, ...options.handBack };
    this.events.setMaxListeners(0);
  }

  async add(name: string, data: unknown, options: AddOptions): Promise<string> {
    if (this.jobs.has(options.jobId)) return options.jobId;
    this.jobs.set(options.jobId, {
      snapshot: {
        id: options.jobId,
        name,
        state: "waiting",
        progress: undefined,
        attempts: 0,
        createdAt: this.now(),
      },
      // Like the Redis queue, a job holds a copy of its data, not the caller's object.
      data: structuredClone(data),
      maxAttempts: options.attempts ?? DEFAULT_ATTEMPTS,
      checkpoint: undefined,
      handBacks: 0,
      generation: 0,
    });
    this.waiting.push(options.jobId);
    this.pump();
    return options.jobId;
  }

  async get(id: string): Promise<JobSnapshot | undefined> {
    const job = this.jobs.get(id);
    return job && structuredClone(job.snapshot);
  }

  async waitFor(id: string, timeoutMs: number): Promise<JobSnapshot | undefined> {
    const job = this.jobs.get(id);
    if (!job || isFinal(job.snapshot)) return this.get(id);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(id, done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on(id, done);
    });
    return this.get(id);
  }

  async retry(id: string): Promise<boolean> {
    const job = this.jobs.get(id);
    if (job?.snapshot.state !== "failed") return false;
    this.forgetFinished(id);
    job.handBacks = 0;
    Object.assign(job.snapshot, {
      state: "waiting",
      attempts: 0,
      handBacks: undefined,
      error: undefined,
      finishedAt: undefined,
    });
    this.waiting.push(id);
    this.pump();
    return true;
  }

  async counts(): Promise<JobCounts> {
    const counts: JobCounts = { waiting: 0, active: 0, completed: 0, failed: 0 };
    for (const job of this.jobs.values()) counts[job.snapshot.state]++;
    return counts;
  }

  process(handler: JobHandler, options: ProcessOptions): void {
    if (this.handler) throw new InvariantError(`queue ${this.name} already has a handler`);
    this.handler = handler;
    this.concurrency = Math.max(1, options.concurrency);
    this.pump();
  }

  async close(options: CloseOptions = {}): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    const settled = Promise.allSettled([...this.active]);
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0) await Promise.race([settled, new Promise((r) => setTimeout(r, graceMs).unref())]);
    for (const job of this.jobs.values()) {
      if (job.snapshot.state !== "active") continue;
      job.generation++;
      job.abort?.abort(new Error("queue closing: job handed back"));
      job.snapshot.state = "waiting";
      this.waiting.unshift(job.snapshot.id);
    }
  }

  private pump(): void {
    while (!this.closed && this.handler && this.running < this.concurrency && this.waiting.length) {
      const id = this.waiting.shift()!;
      const job = this.jobs.get(id);
      if (job?.snapshot.state !== "waiting") continue;
      const attempt = this.start(job, this.handler).finally(() => {
        this.active.delete(attempt);
        this.running--;
        this.pump();
      });
      this.active.add(attempt);
    }
  }

  private async start(job: Job, handler: JobHandler): Promise<void> {
    this.running++;
    const generation = job.generation;
    const abort = new AbortController();
    job.abort = abort;
    const snapshot = job.snapshot;
    snapshot.state = "active";
    snapshot.attempts++;
    const current = () => job.generation === generation;
    let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      const value = await handler({
        id: snapshot.id,
        name: snapshot.name,
        data: job.data,
        attempt: snapshot.attempts,
        checkpoint: job.checkpoint,
        signal: abort.signal,
        progress: async (value) => {
          if (current()) snapshot.progress = structuredClone(value);
        },
        saveCheckpoint: async (value) => {
          if (current()) job.checkpoint = structuredClone(value);
        },
      });
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (job.generation !== generation) return; // handed back while it ran
    if (outcome.ok) {
      snapshot.result = structuredClone(outcome.value);
      this.finish(job, "completed");
    } else if (outcome.error instanceof HandBack) {
      job.handBacks++;
      snapshot.handBacks = job.handBacks;
      if (job.handBacks >= this.handBack.maxHandBacks) {
        snapshot.error = handedBackTooOften(job.handBacks, outcome.error);
        this.finish(job, "failed");
      } else this.offerAgain(snapshot, handBackDelayMs(this.handBack, job.handBacks));
    } else if (snapshot.attempts - job.handBacks < job.maxAttempts && isRetryable(outcome.error)) {
      snapshot.error = failureMessage(outcome.error);
      this.offerAgain(snapshot, this.retryDelayMs * 2 ** (snapshot.attempts - job.handBacks - 1));
    } else {
      snapshot.error = failureMessage(outcome.error);
      this.finish(job, "failed");
    }
  }

  /** Back to waiting after `delayMs` (at once, for the next process, when the queue is closing). */
  private offerAgain(snapshot: JobSnapshot, delayMs: number): void {
    snapshot.state = "waiting";
    if (this.closed) {
      this.waiting.push(snapshot.id);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waiting.push(snapshot.id);
      this.pump();
    }, delayMs);
    this.timers.add(timer);
  }

  private finish(job: Job, state: "completed" | "failed"): void {
    job.snapshot.state = state;
    job.snapshot.finishedAt = this.now();
    job.abort = undefined;
    this.finished.push(job.snapshot.id);
    while (this.finished.length > this.keepFinished) this.jobs.delete(this.finished.shift()!);
    this.events.emit(job.snapshot.id);
  }

  private forgetFinished(id: string): void {
    const i = this.finished.indexOf(id);
    if (i >= 0) this.finished.splice(i, 1);
  }
}

function isFinal(snapshot: JobSnapshot): boolean {
  return snapshot.state === "completed" || snapshot.state === "failed";
}
