import { ChatModelError } from "./chat-model-error.ts";

/**
 * Retries for chat calls. Exponential backoff with jitter (initialDelayMs · 2^(n−1), capped at
 * maxDelayMs, times a factor in [0.5, 1) so that many workers hitting one overloaded server do not
 * retry in lockstep); a server's `Retry-After` replaces the computed delay, still capped.
 */
export interface RetryPolicy {
  /** Retries after the first request; 0 disables retrying. */
  retries: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Three retries, 0.5 s doubling to at most 8 s: rides out a model server restarting or a short 429 storm. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, initialDelayMs: 500, maxDelayMs: 8_000 };

/** The wait before retry number `retry` (1-based). */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), policy.maxDelayMs);
  const exponential = Math.min(policy.initialDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return exponential * (0.5 + random() / 2);
}

export interface RetryContext {
  policy: RetryPolicy;
  signal?: AbortSignal;
  /** Epoch ms after which no new attempt starts. */
  deadline?: number;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Calls `attempt(n)` (n = 1, 2, …) until it succeeds, fails with a non-retryable ChatModelError,
 * runs out of retries, or the next wait would pass the deadline. Rejects with the last
 * ChatModelError, annotated with the number of requests made.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  ctx: RetryContext,
): Promise<{ value: T; attempts: number }> {
  const now = ctx.now ?? Date.now;
  const random = ctx.random ?? Math.random;
  const sleep = ctx.sleep ?? abortableSleep;
  for (let n = 1; ; n++) {
    try {
      return { value: await attempt(n), attempts: n };
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
      if (ctx.signal?.aborted && error.kind !== "aborted") {
        throw new ChatModelError(`aborted after: ${error.message}`, "aborted", { attempts: n });
      }
      if (!error.retryable || n > ctx.policy.retries) throw error.withAttempts(n);
      const wait = backoffDelayMs(n, ctx.policy, random, error.options.retryAfterMs);
      if (ctx.deadline !== undefined && now() + wait >= ctx.deadline) throw error.withAttempts(n);
      try {
        await sleep(wait, ctx.signal);
      } catch {
        throw new ChatModelError(`aborted while waiting to retry after: ${error.message}`, "aborted", {
          attempts: n,
        });
      }
    }
  }
}

/** setTimeout as a promise that rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
