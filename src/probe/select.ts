import type { Perturbation } from "./types.ts";

/**
 * Which perturbations of a test run, within `max` (pure): neighbours before boundaries, and within
 * each kind round-robin over the literals, so every literal gets its first neighbour before any gets
 * its second. Deterministic: the same perturbations for every candidate of a task.
 */
export function selectPerturbations(
  perLiteral: readonly (readonly Perturbation[])[],
  max: number,
): Perturbation[] {
  const out: Perturbation[] = [];
  for (const kind of ["neighbour", "boundary"] as const) {
    const queues = perLiteral.map((ps) => ps.filter((p) => p.kind === kind));
    for (let rank = 0; out.length < max; rank++) {
      let more = false;
      for (const queue of queues) {
        if (rank >= queue.length) continue;
        more = true;
        if (out.length < max) out.push(queue[rank]!);
      }
      if (!more) break;
    }
  }
  return out;
}
