import { GagarError, InvariantError, isUserError, SandboxError } from "../errors.ts";

/**
 * Where a job is. Retries waiting for their back-off count as `waiting`; `completed` and `failed`
 * are final (a failed job can be sent round again with `retry`).
 */
export type JobState = "waiting" | "active" | "completed" | "failed";

/** What `get` and `waitFor` report about a job. */
export interface JobSnapshot {
  id: string;
  /** The kind of work (`verify`, `grade`, `step`…), as given to `add`. */
  name: string;
  state: JobState;
  /** The last value the handler reported through `progress` (JSON), if any. */
  progress: unknown;
  /** The handler's return value, once completed. */
  result?: unknown;
  /** Why the last attempt failed (the error's message). */
  error?: string;
  /** Attempts started so far, including a running one and the ones that handed the job back. */
  attempts: number;
  /** Times a process handed the job back (HandBack) instead of running it; absent when none did. */
  handBacks?: number;
  /** Epoch milliseconds. */
  createdAt: number;
  finishedAt?: number;
}

export type JobCounts = Record<JobState, number>;

/** What a handler gets for one attempt at a job. */
export interface JobContext {
  id: string;
  name: string;
  data: unknown;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * What an earlier attempt saved with `saveCheckpoint` (undefined on the first): a job that died
   * after its expensive part re-runs only what came after it.
   */
  checkpoint: unknown;
  /** Aborted when the queue takes the job back from this handler (shutdown past its grace time). */
  signal: AbortSignal;
  progress(value: unknown): Promise<void>;
  saveCheckpoint(value: unknown): Promise<void>;
}

export type JobHandler = (job: JobContext) => Promise<unknown>;

export interface AddOptions {
  /**
   * The job's id, chosen by the caller: adding an id that is already queued, running or finished
   * adds nothing, so work keyed by its content is done once (a finished job stays until the queue's
   * retention drops it).
   */
  jobId: string;
  /** Attempts before the job fails (default 3); errors that retrying cannot fix fail at once. */
  attempts?: number;
}

export interface ProcessOptions {
  /** Jobs this process runs at once. */
  concurrency: number;
}

export interface CloseOptions {
  /**
   * How long running jobs may take to finish before they are handed back to the queue for another
   * process (default 0: hand back at once). Handed-back jobs restart from their checkpoint.
   */
  graceMs?: number;
}

/**
 * A named queue of jobs (the seam between the HTTP service and the processes that do the work).
 * Every implementation runs one contract suite (contract.test-suite.ts): `in-process` (one process,
 * nothing survives it; the embedded default) and `bullmq` (Redis: jobs outlive any process, and a job
 * whose process died is picked up again by another).
 */
export interface JobQueue {
  readonly name: string;
  readonly backend: string;
  /** Adds a job unless one with `options.jobId` exists; returns the job id. */
  add(name: string, data: unknown, options: AddOptions): Promise<string>;
  get(id: string): Promise<JobSnapshot | undefined>;
  /**
   * Waits until the job is completed or failed, or `timeoutMs` passed, and returns its snapshot
   * then (undefined for an unknown job).
   */
  waitFor(id: string, timeoutMs: number): Promise<JobSnapshot | undefined>;
  /** Sends a failed job round again (fresh attempts); false if it is not failed. */
  retry(id: string): Promise<boolean>;
  counts(): Promise<JobCounts>;
  /** Starts taking jobs from the queue and running `handler` on them. Once per queue object. */
  process(handler: JobHandler, options: ProcessOptions): void;
  /** Stops taking jobs, lets running ones finish within the grace time, hands back the rest. */
  close(options?: CloseOptions): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 3;

/**
 * Thrown by a handler that cannot run a job in this process though another could (a worker that
 * cannot get the task pack the job names): the job is not failed and uses up no attempt; it goes
 * back to the queue after a back-off, for any process to take. A job handed back `maxHandBacks`
 * times fails with the last hand-back's message, so one that no process can run does not circle
 * for ever.
 */
export class HandBack extends GagarError {
  override readonly name = "HandBack";
}

/** How hand-backs are paced and bounded; queue implementations take overrides (tests shorten them). */
export interface HandBackPolicy {
  /** Back-off before the job is offered again after its first hand-back; doubles with each further one. */
  delayMs: number;
  /** The longest back-off. */
  maxDelayMs: number;
  /** Hand-backs after which the job fails. */
  maxHandBacks: number;
}

/**
 * Ten hand-backs from 1 s doubling to at most a minute give the job about five minutes to meet a
 * process that can run it: long enough for a busy worker with the pack to come free, short enough
 * that a job no worker can run fails while its request is still waited on.
 */
export const DEFAULT_HAND_BACK: HandBackPolicy = { delayMs: 1000, maxDelayMs: 60_000, maxHandBacks: 10 };

/** The back-off after the `handBacks`-th hand-back (1-based). */
export function handBackDelayMs(policy: HandBackPolicy, handBacks: number): number {
  return Math.min(policy.maxDelayMs, policy.delayMs * 2 ** Math.max(0, handBacks - 1));
}

/** The failure message of a job handed back too often. */
export function handedBackTooOften(handBacks: number, error: HandBack): string {
  return `handed back ${handBacks} times, no process could run it: ${error.message}`;
}

/**
 * Whether another attempt could succeed: not for bad input (the user must fix it), gagar bugs, or
 * infrastructure faults that say they are permanent.
 */
export function isRetryable(error: unknown): boolean {
  if (isUserError(error) || error instanceof InvariantError) return false;
  if (error instanceof SandboxError) return error.retryable;
  return true;
}

/** The message a job's failure is recorded with: user errors as they are, others with their kind. */
export function failureMessage(error: unknown): string {
  if (isUserError(error)) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
