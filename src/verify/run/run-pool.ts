import { availableParallelism } from "node:os";
import { SandboxError } from "../../errors.ts";
import type { RunResult } from "../../sandbox/types.ts";
import type { TestPlan } from "../runners/types.ts";
import type { TaskState } from "../workspace/task-state.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  type CandidateRun,
  type CandidateRunDeps,
  type RunOverrides,
  startCandidateRun,
} from "./candidate-run.ts";
import { type RunnerRequest, runnerRequest } from "./runner-plan.ts";
import { planTests } from "./test-plan.ts";

/**
 * The sandbox runs of one verifier session: a candidate's run, started for it or taken from the runs
 * started ahead, and the start of a task's next run while the current candidate tests.
 *
 * A run can be started before its candidate is known (candidate-run.ts: the runner waits on stdin for
 * the token and the patch). With `readyNext`, the task's next run starts while this candidate tests,
 * on a spare CPU, so the next candidate of the task can find its sandbox up instead of waiting for it.
 * The overlap can slow the running tests by about as much on a machine with few CPUs (exec-heavy work
 * on one CPU slows a CPU-bound process on another); bench/verify.bench.ts measures a group both ways.
 * At most `readyRuns` wait at a time; `drop` and `close` end them.
 *
 * Runs of another plan than the task's own (`OtherPlan`: behavioural probes) are started ahead the same
 * way, under a key of their own, so a task's probe runs never take a run made for its candidates.
 */
export interface RunPoolOptions {
  /** What every run is started with (sandbox, workspace factory, runner). */
  deps: CandidateRunDeps;
  /** Runs kept started ahead (one per task at most). Default 2. */
  readyRuns?: number;
  /**
   * Runs are started ahead only while fewer than this many runs are testing or starting: on a busy
   * machine a start ahead only takes CPU from the candidates that are testing. Default: the CPU count.
   */
  readyCpuBudget?: number;
  /** Retries of a run that failed with a retryable SandboxError. Default 2. */
  retries?: number;
  warn?: (message: string) => void;
}

/** How the session's sandbox runs were started (for summaries and tests). */
export interface VerifierStats {
  /** Candidates that got a sandbox started for them on demand. */
  startedOnDemand: number;
  /** Candidates that got a sandbox started ahead (readyNext). */
  startedAhead: number;
  /** Sandboxes started ahead that no candidate took (ended by a later task, dropReadyRuns or close). */
  discarded: number;
}

/** A plan other than the task's own (Verifier.runPlan), run with the guards off. */
export interface OtherPlan {
  /** Names the plan and its overrides among the task's runs started ahead: the same key, the same run. */
  key: string;
  plan: TestPlan;
  overrides: RunOverrides;
}

/** Runs started ahead are kept per task and plan; `drop` finds a task's by the part before the separator. */
const KEY_SEPARATOR = "\0";

function poolKey(task: TaskState, other: OtherPlan | undefined): string {
  return other ? `${task.pack.dir}${KEY_SEPARATOR}${other.key}` : task.pack.dir;
}

function taskOfKey(key: string): string {
  const at = key.indexOf(KEY_SEPARATOR);
  return at < 0 ? key : key.slice(0, at);
}

export class RunPool {
  readonly stats: VerifierStats = { startedOnDemand: 0, startedAhead: 0, discarded: 0 };
  private readonly ready: ReadyRuns;
  private readonly starting = new Map<string, Promise<void>>();
  private readonly closing = new Set<Promise<void>>();
  /** Candidates between the start of their run (or taking one started ahead) and its end. */
  private busy = 0;
  private closed = false;

  constructor(private readonly options: RunPoolOptions) {
    this.ready = new ReadyRuns(options.readyRuns ?? 2, (run) => this.discard(run));
  }

  /**
   * Runs one candidate (what the gate let through) in a sandbox of `task` and hands the finished run
   * and the request it got (its secret token) to `judge`, which reads its outputs; the run's workspace is removed afterwards, in the background. A run that fails
   * with a retryable SandboxError is tried again on a fresh sandbox. `readyNext` is asked once the
   * candidate is delivered: true starts the task's next run while this one tests. With `other`, the
   * run is of that plan instead of the task's own.
   */
  async run<T>(
    task: TaskState,
    gate: { patch: string; files: readonly { newPath: string | null }[] },
    readyNext: () => boolean,
    judge: (run: CandidateRun, result: RunResult, request: RunnerRequest) => T,
    other?: OtherPlan,
  ): Promise<T> {
    const request = runnerRequest(gate);
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      const run = await this.acquire(task, other);
      try {
        const running = run.go(request).finally(() => this.busy--);
        if (readyNext()) this.startAhead(task, other);
        return judge(run, await running, request);
      } catch (e) {
        if (!(e instanceof SandboxError) || !e.retryable || attempt >= retries) throw e;
        this.options.warn?.(`sandbox run failed (${e.message}); retrying`);
      } finally {
        this.release(run.workspace);
      }
    }
  }

  /** The task's run started ahead if there is one (one still starting is waited for), otherwise a new one. */
  private async acquire(task: TaskState, other: OtherPlan | undefined): Promise<CandidateRun> {
    this.busy++;
    try {
      const key = poolKey(task, other);
      await this.starting.get(key);
      const ahead = this.ready.take(key);
      if (ahead) {
        this.stats.startedAhead++;
        return ahead;
      }
      const run = await this.start(task, other);
      this.stats.startedOnDemand++;
      return run;
    } catch (e) {
      this.busy--;
      throw e;
    }
  }

  /** Starts a run for the task's next candidate in the background, unless one is waiting or starting. */
  private startAhead(task: TaskState, other: OtherPlan | undefined): void {
    const key = poolKey(task, other);
    if (this.closed || this.ready.has(key) || this.starting.has(key)) return;
    if (this.busy + this.starting.size >= (this.options.readyCpuBudget ?? availableParallelism())) return;
    const starting = this.start(task, other)
      .then(async (run) => {
        await run.ready;
        if (this.closed) this.discard(run);
        else this.ready.put(key, run);
      })
      .catch((e) => this.options.warn?.(`could not start a sandbox ahead: ${(e as Error).message}`))
      .finally(() => this.starting.delete(key));
    this.starting.set(key, starting);
  }

  private start(task: TaskState, other: OtherPlan | undefined): Promise<CandidateRun> {
    if (other) {
      const deps = { ...this.options.deps, guards: false };
      return startCandidateRun(deps, task, other.plan, task.snapshot, other.overrides);
    }
    const plan = planTests(task.pack, {
      sources: task.testSources,
      repositoryModules: new Set(Object.keys(task.guard.modules)),
    });
    return startCandidateRun(this.options.deps, task, plan, task.snapshot);
  }

  /** Ends a run that never got a candidate and frees its workspace, in the background. */
  private discard(run: CandidateRun): void {
    this.stats.discarded++;
    this.track(run.cancel().then(() => this.release(run.workspace)));
  }

  /** Unmounts a used workspace in the background: the verdict does not wait for it, `idle` does. */
  release(workspace: Workspace): void {
    this.track(
      workspace
        .close()
        .catch((e) =>
          this.options.warn?.(`could not remove workspace ${workspace.dir}: ${(e as Error).message}`),
        ),
    );
  }

  private track(work: Promise<void>): void {
    const closing: Promise<void> = work.finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** Resolves once no background work (runs starting ahead, workspaces being removed) is in progress. */
  async idle(): Promise<void> {
    while (this.starting.size || this.closing.size)
      await Promise.allSettled([...this.starting.values(), ...this.closing]);
  }

  /**
   * Ends the runs started ahead (for the tasks whose pack folders are in `keys` only, when given) and
   * waits for background work. Without `keys`, no run of the pool is alive afterwards.
   */
  async drop(keys?: ReadonlySet<string>): Promise<void> {
    const dropped = (key: string) => !keys || keys.has(taskOfKey(key));
    await Promise.allSettled([...this.starting].filter(([key]) => dropped(key)).map(([, p]) => p));
    for (const run of this.ready.drain(dropped)) this.discard(run);
    if (keys) await Promise.allSettled([...this.closing]);
    else await this.idle();
  }

  /** Starts nothing more ahead and ends what waits. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drop();
  }
}

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

  /** The waiting runs whose keys `which` picks, removed from the pool. */
  drain(which: (key: string) => boolean): CandidateRun[] {
    const taken: CandidateRun[] = [];
    for (const [task, run] of this.runs) {
      if (!which(task)) continue;
      this.runs.delete(task);
      taken.push(run);
    }
    return taken;
  }
}
