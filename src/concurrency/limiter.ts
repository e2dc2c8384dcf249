/**
 * Runs at most `concurrency` tasks at once; the rest wait in FIFO order. A finishing task hands its
 * slot straight to the next waiter, so a task arriving in between can never take it as well and
 * push the count over the limit.
 */
export interface Limiter {
  <T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
}

export function createLimiter(concurrency: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  const limit = async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < concurrency) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
  return Object.defineProperty(limit, "active", { get: () => active }) as Limiter;
}
