/**
 * Maps `fn` over `source` with at most `limit` calls in flight, yielding results in input order —
 * so `gagar grade --concurrency C` keeps a model server busy yet writes rankings in group order.
 * The source is read only as fast as results are consumed (at most `limit` ahead). The first
 * failure, in input order, is thrown; calls already started are left to finish unobserved.
 */
export async function* mapOrdered<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const pending: Promise<R>[] = [];
  for await (const item of source) {
    const started = fn(item);
    // Marks a rejection as handled until its turn comes, so a later failure cannot crash the process first.
    started.catch(() => undefined);
    pending.push(started);
    if (pending.length >= Math.max(1, limit)) yield await pending.shift()!;
  }
  while (pending.length) yield await pending.shift()!;
}
