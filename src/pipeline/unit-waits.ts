import type { JobContext, JobQueue } from "../queue/types.ts";

/** How one unit ended, for the request that waited on it. */
export type UnitOutcome<R> = { ok: true; value: R; reused: boolean } | { ok: false; error: string };

/** How long one wait on a unit lasts before the request looks again (and checks it still runs). */
const WAIT_SLICE_MS = 30_000;
/** Units waited on at once by one request (results arrive in any order; this bounds the polling). */
const PARALLEL_WAITS = 16;
/** Least time between two progress reports of a request. */
const PROGRESS_EVERY_MS = 500;

/**
 * Puts work units on the queue under their content ids (a unit already queued, running or done is
 * not added again; a failed one is sent round again, since this request asks anew) and waits for
 * all of them, reporting `{done, total}` as progress of the request job. Returns one outcome per
 * unit, in order. `reused` says the unit was already done before this request asked.
 *
 * Stops with the request job's signal (the request was handed back to the queue: its next attempt
 * asks again and finds the units where they are).
 */
export async function runUnits<U, R>(
  queue: JobQueue,
  request: JobContext,
  kind: string,
  units: readonly U[],
  idOf: (unit: U) => string,
): Promise<UnitOutcome<R>[]> {
  const ids = units.map(idOf);
  const unique = [...new Set(ids)];
  const reused = new Set<string>();
  for (const id of unique) {
    const before = await queue.get(id);
    if (before?.state === "completed") reused.add(id);
    else if (before?.state === "failed") await queue.retry(id);
    else if (!before) await queue.add(kind, units[ids.indexOf(id)], { jobId: id });
  }
  let done = 0;
  let reported = 0;
  const report = async (force = false) => {
    if (!force && Date.now() - reported < PROGRESS_EVERY_MS) return;
    reported = Date.now();
    await request.progress({ done, total: unique.length });
  };
  await report(true);
  const outcomes = new Map<string, UnitOutcome<R>>();
  const waitOne = async (id: string) => {
    for (;;) {
      if (request.signal.aborted) throw request.signal.reason;
      const snapshot = await queue.waitFor(id, WAIT_SLICE_MS);
      if (!snapshot) {
        // Dropped from the queue meanwhile (retention, a flushed Redis): ask for it again.
        await queue.add(kind, units[ids.indexOf(id)], { jobId: id });
        continue;
      }
      if (snapshot.state === "completed") {
        outcomes.set(id, { ok: true, value: snapshot.result as R, reused: reused.has(id) });
        break;
      }
      if (snapshot.state === "failed") {
        outcomes.set(id, { ok: false, error: snapshot.error ?? "failed" });
        break;
      }
    }
    done++;
    await report();
  };
  for (let i = 0; i < unique.length; i += PARALLEL_WAITS)
    await Promise.all(unique.slice(i, i + PARALLEL_WAITS).map(waitOne));
  await report(true);
  return ids.map((id) => outcomes.get(id)!);
}
