import type { CandidateRun } from "./candidate-run.ts";

/**
 * Candidate runs started ahead, at most one per task and `capacity` in all (each holds a sandbox uid, a
 * workspace mount and an idle interpreter). Taking a task's run leaves its slot free for the next one;
 * when the pool is full, the run waiting longest is cancelled to make room.
 */
export class ReadyRuns {
  private readonly runs = new Map<string, CandidateRun>();

  constructor(
    private readonly capacity: number,
    private readonly discard: (run: CandidateRun) => void,
  ) {}

  /** The task's ready run, if one is waiting and still alive. */
  take(task: string): CandidateRun | undefined {
    const run = this.runs.get(task);
    if (!run) return undefined;
    this.runs.delete(task);
    if (!run.ended) return run;
    this.discard(run);
    return undefined;
  }

  has(task: string): boolean {
    return this.runs.has(task);
  }

  put(task: string, run: CandidateRun): void {
    if (this.capacity <= 0) {
      this.discard(run);
      return;
    }
    const old = this.runs.get(task);
    if (old) this.discard(old);
    this.runs.delete(task);
    while (this.runs.size >= this.capacity) {
      const [oldest, waiting] = this.runs.entries().next().value as [string, CandidateRun];
      this.runs.delete(oldest);
      this.discard(waiting);
    }
    this.runs.set(task, run);
  }

  /** The waiting runs (of the given tasks only, when given), removed from the pool. */
  drain(tasks?: ReadonlySet<string>): CandidateRun[] {
    const taken: CandidateRun[] = [];
    for (const [task, run] of this.runs) {
      if (tasks && !tasks.has(task)) continue;
      this.runs.delete(task);
      taken.push(run);
    }
    return taken;
  }
}
