import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxError } from "../errors.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import { type GateLimits, gatePatch, type ProtectedPolicy } from "./gate/patch-gate.ts";
import { toolchainModules } from "./gate/toolchain-modules.ts";
import type { TaskPack } from "./pack/task-pack.ts";
import type { CandidateRunDeps, RunOverrides } from "./run/candidate-run.ts";
import { type PlanRun, runPlan } from "./run/plan-run.ts";
import { RunPool, type VerifierStats } from "./run/run-pool.ts";
import type { TestPlan } from "./runners/types.ts";
import { installRunner } from "./session/runner-install.ts";
import { selfTest } from "./session/self-test.ts";
import { claimSession, SESSION_PREFIX, sweepStaleSessions } from "./session/stale-sessions.ts";
import { TaskCache } from "./session/task-cache.ts";
import { type Outcome, type VerifyCallOptions, verifyCandidate } from "./verify-candidate.ts";
import { IdmappedLowers } from "./workspace/idmapped-lowers.ts";
import type { TaskState } from "./workspace/task-state.ts";
import { DEFAULT_WORKSPACE_LIMITS, WorkspaceFactory, type WorkspaceLimits } from "./workspace/workspace.ts";

export type { PlanRun } from "./run/plan-run.ts";

/** How Verifier.runPlan starts a plan's next run ahead. */
export interface PlanAhead {
  key: string;
  readyNext: () => boolean;
}
export type { VerifierStats } from "./run/run-pool.ts";
export type { Outcome, VerifyCallOptions } from "./verify-candidate.ts";

/**
 * One verification session: verifies candidate patches for task packs in a sandbox. The session owns
 * its work folder (a fresh one in the OS temp dir unless given; leftovers of killed sessions are swept
 * before the first run), the compiled runner, the prepared tasks (session/task-cache.ts), the sandbox
 * runs (run/run-pool.ts) and the self-test; each candidate goes through `verifyCandidate`
 * (verify-candidate.ts: gate → run → verdict).
 *
 * Per candidate, ONE sandbox run of the trusted runner (run/sandbox-runner.py) applies the patch with
 * `git -c core.hooksPath=/dev/null apply` (no fallback) before any candidate code exists, drops
 * bytecode, then runs the tests with the report on a pipe, kills every leftover process and writes the
 * reports to /out. Hidden tests, protected pristine files and canaries are read-only binds laid over
 * the workspace for the whole run, so neither the patch nor code running during the tests can change
 * them; the sandbox removes (never follows) whatever stands where a bind goes.
 *
 * Apply and tests share one sandbox run (a textbook recipe uses two): until the tests start, the only
 * process in it is `git apply`, so there is nothing a second, fresh sandbox would get rid of, and the
 * sandbox's setup (uid lease, workspace hand-over, namespaces) is paid once.
 *
 * Only faults of the verifier or the host become `infra-error` (SandboxError from the backend after
 * retries, failed mounts); everything the candidate can cause scores 0 with its own reason.
 *
 * Residual risk (security.md §4.4): the candidate's code runs inside the test process, so it can fake
 * exactly the graded tests (an import hook, a targeted outcome hook) and leave the canaries alone. No
 * isolation prevents that; the canaries catch blanket forgery, and gate/suspicious-patterns.ts flags
 * the idioms (`runner-tampering`, critical) so that a pass with a critical finding can be vetoed.
 */

export interface VerifierOptions {
  sandbox: SandboxBackend;
  /** Directory for the session's snapshots and workspaces (default: a fresh one in the OS temp dir). */
  workRoot?: string;
  protectedPolicy?: ProtectedPolicy;
  gateLimits?: Partial<GateLimits>;
  workspaceLimits?: WorkspaceLimits;
  /** Extra wall time on top of the task's timeoutSec, for applying the patch and starting the runner. */
  setupMarginMs?: number;
  /** Retries of a run that failed with a retryable SandboxError. */
  retries?: number;
  /** Runs kept started ahead (one per task at most; see `verify`'s `readyNext`). Default 2. */
  readyRuns?: number;
  /**
   * Runs are started ahead only while fewer than this many runs are testing or starting: on a busy
   * machine a start ahead only takes CPU from the candidates that are testing. Default: the CPU count.
   */
  readyCpuBudget?: number;
  warn?: (message: string) => void;
  /** Where built task environments are kept across sessions (default ~/.cache/gagar/environments). */
  environmentCache?: string;
  /** Progress of environment builds (extracting a root filesystem, setup commands). */
  log?: (message: string) => void;
  /**
   * Load the guards into the test process (guards/). Default true. Turned off only to measure them:
   * the real-code fidelity suite runs a repository's own test suite with and without them.
   */
  guards?: boolean;
}

/** The default cache of built task environments. */
export const DEFAULT_ENVIRONMENT_CACHE = join(homedir(), ".cache", "gagar", "environments");

export class Verifier {
  private readonly root: string;
  private readonly ownsRoot: boolean;
  private readonly lowers: IdmappedLowers;
  private readonly tasks: TaskCache;
  private readonly pool: RunPool;
  private readonly runDeps: CandidateRunDeps;
  private readonly swept: Promise<void>;
  private modules: Promise<Set<string>> | undefined;
  private selfTested: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: VerifierOptions) {
    this.ownsRoot = options.workRoot === undefined;
    this.root = options.workRoot ?? mkdtempSync(join(tmpdir(), SESSION_PREFIX));
    claimSession(this.root);
    // Leftovers of killed sessions (their per-candidate mounts) are cleaned before the first run.
    this.swept = this.ownsRoot ? sweepStaleSessions(tmpdir()).then(() => undefined) : Promise.resolve();
    mkdirSync(join(this.root, "tasks"), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, "runs"), { recursive: true, mode: 0o700 });
    const runnerSource = installRunner(this.root);
    const emptyDir = join(this.root, "empty");
    mkdirSync(emptyDir, { recursive: true, mode: 0o755 });
    this.lowers = new IdmappedLowers(options.warn, join(this.root, "views"));
    const factory = new WorkspaceFactory(
      join(this.root, "runs"),
      options.workspaceLimits ?? DEFAULT_WORKSPACE_LIMITS,
      options.warn,
      this.lowers,
    );
    this.runDeps = {
      sandbox: options.sandbox,
      factory,
      runnerSource,
      emptyDir,
      setupMarginMs: options.setupMarginMs ?? 3000,
      guards: options.guards ?? true,
    };
    this.tasks = new TaskCache(join(this.root, "tasks"), {
      cacheDir: options.environmentCache ?? DEFAULT_ENVIRONMENT_CACHE,
      sandbox: options.sandbox,
      log: options.log,
    });
    this.pool = new RunPool({
      deps: this.runDeps,
      readyRuns: options.readyRuns,
      readyCpuBudget: options.readyCpuBudget,
      retries: options.retries,
      warn: options.warn,
    });
  }

  get sandboxName(): string {
    return this.options.sandbox.name;
  }

  /** How the session's sandbox runs were started. */
  get stats(): VerifierStats {
    return this.pool.stats;
  }

  /** Verifies `patch` for `pack`. Rejects only for verifier-side faults (callers map them to infra-error). */
  async verify(pack: TaskPack, patch: string, call: VerifyCallOptions = {}): Promise<Outcome> {
    if (this.closed) throw new SandboxError("verifier is closed", false);
    const started = performance.now();
    const modules = pack.runner.python ? this.toolchainModules() : undefined;
    await this.selfTest();
    const task = await this.task(pack);
    const session = {
      pool: this.pool,
      protectedPolicy: this.options.protectedPolicy,
      gateLimits: this.options.gateLimits,
    };
    return verifyCandidate(session, task, patch, { ...call, started, shadowModules: await modules });
  }

  private toolchainModules(): Promise<Set<string>> {
    this.modules ??= toolchainModules();
    return this.modules;
  }

  /**
   * Runs `plan` — a test plan of another stage's (behavioural probes, src/probe/) — on `patch` in the
   * task's sandbox (run/plan-run.ts). Meant for patches this session passed: the gate is asked only for
   * its rendering (null if it refuses). With `ahead`, the next run of the same plan (`key` names the
   * plan and its overrides) is started while this one tests, when `readyNext` says one is coming.
   */
  async runPlan(
    pack: TaskPack,
    patch: string,
    plan: TestPlan,
    overrides: RunOverrides,
    ahead?: PlanAhead,
  ): Promise<PlanRun | null> {
    if (this.closed) throw new SandboxError("verifier is closed", false);
    await this.selfTest();
    const task = await this.task(pack);
    const gate = gatePatch(patch, {
      policy: task.policy,
      protectedPolicy: this.options.protectedPolicy,
      limits: this.options.gateLimits,
      pristineHas: (p) => task.snapshot.paths.has(p),
    });
    if (!gate.ok) return null;
    // Without `ahead` nothing is started under the key, so runs that share it never share a sandbox.
    const key = ahead?.key ?? "";
    return runPlan(this.pool, task, gate, { key, plan, overrides }, ahead?.readyNext ?? (() => false));
  }

  /** The task's snapshot and restore mounts, built on first use. */
  task(pack: TaskPack): Promise<TaskState> {
    return this.tasks.get(pack);
  }

  /** Resolves once no background work (runs starting ahead, workspaces being removed) is in progress. */
  idle(): Promise<void> {
    return this.pool.idle();
  }

  /**
   * Ends the runs started ahead (for `packs` only, when given) and waits for background work. Without
   * `packs`, no process of this session is alive afterwards until the next `verify`.
   */
  dropReadyRuns(packs?: ReadonlySet<TaskPack>): Promise<void> {
    return this.pool.drop(packs && new Set([...packs].map((p) => p.dir)));
  }

  /**
   * Frees what the session holds for `pack`: runs started ahead, the views and the folder of its
   * snapshot. A long import verifies each task twice and moves on; without this every task's copy of
   * its repository would stay until the session ends. Call it when no verification of `pack` is in
   * flight; a later `verify` of it prepares it again.
   */
  forget(pack: TaskPack): Promise<void> {
    return this.tasks.forget(pack, async (task) => {
      await this.dropReadyRuns(new Set([pack]));
      if (task) await this.lowers.forget(task.snapshot.dir);
    });
  }

  /** Unmounts and removes everything the session made. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
    await this.tasks.settled();
    await this.lowers.close();
    if (this.ownsRoot) rmSync(this.root, { recursive: true, force: true });
    else {
      for (const dir of ["tasks", "runs", "views", "empty"])
        rmSync(join(this.root, dir), { recursive: true, force: true });
    }
  }

  /**
   * Runs the runner once with a trivial plan (session/self-test.ts), so that a broken sandbox or
   * toolchain is reported as what it is instead of turning every candidate into `crashed`.
   */
  selfTest(): Promise<void> {
    this.selfTested ??= this.swept.then(() =>
      // Its view (idmapped-lowers.ts) is of no use after this run.
      selfTest(this.runDeps, join(this.root, "tasks", "self-test"), (dir) => this.lowers.forget(dir)),
    );
    return this.selfTested;
  }
}
