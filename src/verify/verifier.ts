import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Finding } from "../contracts/finding.ts";
import { SandboxError } from "../errors.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import {
  type CandidateRun,
  type CandidateRunDeps,
  REPORT_CAP,
  type RunOverrides,
  startCandidateRun,
} from "./candidate-run.ts";
import { type Graded, grade } from "./grade.ts";
import { GUARD_CAP } from "./guards/guard-setup.ts";
import { IdmappedLowers } from "./idmapped-lowers.ts";
import { outputTail } from "./output-tail.ts";
import { type GateLimits, gatePatch, type ProtectedPolicy } from "./patch-gate.ts";
import { ReadyRuns } from "./ready-runs.ts";
import { canaryNames, maskCanaryNames } from "./runners/canary.ts";
import { REPORT_FD, type TestPlan } from "./runners/types.ts";
import { safeReadFile } from "./safe-read.ts";
import { claimSession, SESSION_PREFIX, sweepStaleSessions } from "./stale-sessions.ts";
import { scanSuspicious } from "./suspicious-patterns.ts";
import type { TaskPack } from "./task-pack.ts";
import { prepareTask, type TaskState } from "./task-state.ts";
import { planTests } from "./test-plan.ts";
import { toolchainModules } from "./toolchain-modules.ts";
import {
  DEFAULT_WORKSPACE_LIMITS,
  type Workspace,
  WorkspaceFactory,
  type WorkspaceLimits,
} from "./workspace.ts";

/**
 * One verification session: verifies candidate patches for task packs in a sandbox.
 *
 * Per candidate: static gate (patch-gate.ts) → fresh workspace on the task's snapshot
 * (workspace.ts) → ONE sandbox run of the trusted runner (sandbox-runner.py), which applies the patch
 * with `git -c core.hooksPath=/dev/null apply` (no fallback) before any candidate code exists, drops
 * bytecode, then runs the tests with the report on a pipe, kills every leftover process and writes the
 * reports to /out → the verifier reads them safely (safe-read.ts) after the sandbox is gone → verdict
 * (grade.ts). Hidden tests, protected pristine files and canaries are read-only binds laid over the
 * workspace for the whole run, so neither the patch nor code running during the tests can change them;
 * the sandbox removes (never follows) whatever stands where a bind goes.
 *
 * Apply and tests share one sandbox run (a textbook recipe uses two): until the tests start, the only
 * process in it is `git apply`, so there is nothing a second, fresh sandbox would get rid of, and the
 * sandbox's setup (uid lease, workspace hand-over, namespaces) is paid once.
 *
 * That run can be started before its candidate is known (candidate-run.ts): the runner waits on stdin
 * for the token and the patch. With `readyNext`, the task's next run starts while this candidate
 * tests, on a spare CPU, so the next candidate of the task can find its sandbox up instead of waiting
 * ~60–80 ms for it. On this 2-vCPU VM the overlap slows the running tests by about as much (exec-heavy
 * work on one vCPU slows a CPU-bound process on the other); bench/verify.bench.ts measures a group
 * both ways. At most `readyRuns` wait at a time; `dropReadyRuns` and `close` end them.
 *
 * Only faults of the verifier or the host become `infra-error` (SandboxError from the backend after
 * retries, failed mounts); everything the candidate can cause scores 0 with its own reason.
 *
 * Residual risk (security.md §4.4): the candidate's code runs inside the test process, so it can fake
 * exactly the graded tests (an import hook, a targeted outcome hook) and leave the canaries alone. No
 * isolation prevents that; the canaries catch blanket forgery, and suspicious-patterns.ts flags the
 * idioms (`runner-tampering`, critical) so that a pass with a critical finding can be vetoed.
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

/** What a run of Verifier.runPlan left: each run's second channel, and whether the runner finished. */
export interface PlanRun {
  /** status.json carries this run's token: the runner, not the code under test, wrote the outputs. */
  completed: boolean;
  timedOut: boolean;
  /** Per planned run, what came through its second channel (capped at GUARD_CAP). */
  channels: string[];
  durationMs: number;
}

/** The default cache of built task environments. */
export const DEFAULT_ENVIRONMENT_CACHE = join(homedir(), ".cache", "gagar", "environments");

export interface VerifyCallOptions {
  /**
   * Start the task's next run while this candidate tests (when a CPU is spare), because another
   * candidate of the same task is coming (verifyRollouts knows its queue). A function is asked at that
   * moment. Costs one idle sandbox if none comes.
   */
  readyNext?: boolean | (() => boolean);
  /** Report every test the run reported, not only the task's ids (Graded.observed). */
  observe?: boolean;
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

/** The verifier's result for one patch: the graded test run, or a gate rejection in the same shape. */
export type Outcome = Graded;

const RUNNER_SOURCE = fileURLToPath(new URL("./sandbox-runner.py", import.meta.url));

export class Verifier {
  private readonly root: string;
  private readonly ownsRoot: boolean;
  private readonly factory: WorkspaceFactory;
  private readonly lowers: IdmappedLowers;
  private readonly tasks = new Map<string, Promise<TaskState>>();
  /** Where each task's snapshot and hidden tests are kept, by pack folder. */
  private readonly taskDirs = new Map<string, string>();
  private readonly closing = new Set<Promise<void>>();
  private readonly ready: ReadyRuns;
  private readonly starting = new Map<string, Promise<void>>();
  private modules: Promise<Set<string>> | undefined;
  private selfTested: Promise<void> | undefined;
  private taskCounter = 0;
  private readonly emptyDir: string;
  private readonly runnerPath: string;
  private readonly swept: Promise<void>;
  private closed = false;
  readonly stats: VerifierStats = { startedOnDemand: 0, startedAhead: 0, discarded: 0 };
  /** Candidates between the start of their run (or taking one started ahead) and its end. */
  private busy = 0;

  constructor(private readonly options: VerifierOptions) {
    this.ownsRoot = options.workRoot === undefined;
    this.root = options.workRoot ?? mkdtempSync(join(tmpdir(), SESSION_PREFIX));
    claimSession(this.root);
    // Leftovers of killed sessions (their per-candidate mounts) are cleaned before the first run.
    this.swept = this.ownsRoot ? sweepStaleSessions(tmpdir()).then(() => undefined) : Promise.resolve();
    this.emptyDir = join(this.root, "empty");
    mkdirSync(join(this.root, "tasks"), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, "runs"), { recursive: true, mode: 0o700 });
    this.runnerPath = installRunner(this.root);
    mkdirSync(this.emptyDir, { recursive: true, mode: 0o755 });
    this.lowers = new IdmappedLowers(options.warn, join(this.root, "views"));
    this.factory = new WorkspaceFactory(
      join(this.root, "runs"),
      options.workspaceLimits ?? DEFAULT_WORKSPACE_LIMITS,
      options.warn,
      this.lowers,
    );
    this.ready = new ReadyRuns(options.readyRuns ?? 2, (run) => this.discard(run));
  }

  get sandboxName(): string {
    return this.options.sandbox.name;
  }

  /** Verifies `patch` for `pack`. Rejects only for verifier-side faults (callers map them to infra-error). */
  async verify(pack: TaskPack, patch: string, call: VerifyCallOptions = {}): Promise<Outcome> {
    if (this.closed) throw new SandboxError("verifier is closed", false);
    const started = performance.now();
    const modules = pack.runner.python ? this.toolchainModules() : undefined;
    await this.selfTest();
    const task = await this.task(pack);
    const gateStarted = performance.now();
    const gate = gatePatch(patch, {
      policy: task.policy,
      protectedPolicy: this.options.protectedPolicy,
      limits: this.options.gateLimits,
      shadowModules: await modules,
      pristineHas: (p) => task.snapshot.paths.has(p),
      ...(pack.runner.python && {
        testImports: { repository: task.guard.modules, others: task.guard.watch },
      }),
    });
    const gateMs = performance.now() - gateStarted;
    if (!gate.ok) {
      return {
        passed: false,
        reason: "patch-rejected",
        detail: gate.reason,
        tests: {},
        durationsMs: { gate: gateMs, total: performance.now() - started },
        findings: gate.findings,
      };
    }
    const request = {
      token: randomBytes(16).toString("hex"),
      patch: gate.patch,
      bytecodeDirs: dirsOf(gate.files),
    };
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      this.busy++;
      const run = await this.runFor(task).catch((e) => {
        this.busy--;
        throw e;
      });
      try {
        const running = run.go(request).finally(() => this.busy--);
        // While this candidate tests, on a spare CPU (see readyNext): back-to-back candidates of a
        // task then find their sandbox up instead of waiting ~60–80 ms for it.
        if (typeof call.readyNext === "function" ? call.readyNext() : call.readyNext) this.readyNext(task);
        const result = await running;
        // What no diagnostic may show: hidden-test lines, and the names of this run's canaries.
        const canaries = canaryNames(run.plan, pack.hiddenTests, task.testSources);
        const secrets = [...task.secrets, ...canaries];
        const graded = grade({
          token: request.token,
          failToPass: pack.spec.failToPass,
          passToPass: pack.spec.passToPass,
          missingPassToPass: pack.spec.missingPassToPass,
          plan: run.plan,
          timeoutSec: pack.spec.timeoutSec,
          sandbox: result,
          status: safeReadFile(join(run.workspace.outDir, "status.json"), 1 << 20),
          reports: run.plan.runs.map((_, i) =>
            safeReadFile(join(run.workspace.outDir, `report-${i}.xml`), REPORT_CAP),
          ),
          guards: run.plan.runs.map((_, i) =>
            safeReadFile(join(run.workspace.outDir, `guard-${i}.log`), GUARD_CAP),
          ),
          observe: call.observe,
          secrets,
        });
        // What the run itself found (guards, protected paths) may name a canary's module; what the patch
        // scans found is about the candidate's own text.
        const masked = (text: string) => maskCanaryNames(text, canaries);
        const runFindings: Finding[] = graded.findings.map((f) => ({
          ...f,
          message: masked(f.message),
          ...(f.file !== undefined && { file: masked(f.file) }),
        }));
        const findings = [...gate.findings, ...scanSuspicious(gate.files), ...runFindings];
        for (const path of result.replacedPaths ?? []) {
          findings.push({
            kind: "test-tampering",
            severity: "critical",
            file: masked(path.replace(/^\/workspace\//, "")),
            message: masked(
              `something stood where a protected file is laid over the workspace (${path}); it was removed`,
            ),
          });
        }
        return {
          ...graded,
          outputTail: outputTail(result.stdout, result.stderr, secrets),
          durationsMs: {
            gate: gateMs,
            workspace: run.workspace.prepareMs,
            sandbox: result.durationMs,
            ...graded.durationsMs,
            total: performance.now() - started,
          },
          findings,
        };
      } catch (e) {
        if (!(e instanceof SandboxError) || !e.retryable || attempt >= retries) throw e;
        this.options.warn?.(`sandbox run failed (${e.message}); retrying`);
      } finally {
        this.release(run.workspace);
      }
    }
  }

  /**
   * Runs `plan` — a test plan of another stage's, not the task's own (behavioural probes, src/probe/) —
   * on `patch` in the task's sandbox, environment and limits, with the guards off and, per run, a
   * second channel only the trusted runner reads (`overrides.channelEnv` tells the tests where it is).
   * Meant for patches this session passed: the gate is asked only for its rendering (null if it refuses).
   */
  async runPlan(
    pack: TaskPack,
    patch: string,
    plan: TestPlan,
    overrides: RunOverrides,
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
    const request = {
      token: randomBytes(16).toString("hex"),
      patch: gate.patch,
      bytecodeDirs: dirsOf(gate.files),
    };
    const run = await startCandidateRun(
      { ...this.runDeps(), guards: false },
      task,
      plan,
      task.snapshot,
      overrides,
    );
    try {
      const result = await run.go(request);
      const read = (name: string, cap: number) => {
        const file = safeReadFile(join(run.workspace.outDir, name), cap);
        return file.ok ? file.data.toString("utf8") : null;
      };
      const status = read("status.json", 1 << 20);
      const parsed = parseStatus(status);
      return {
        completed: parsed?.token === request.token,
        timedOut: result.timedOut || (parsed?.runs ?? []).some((r) => r.timedOut === true),
        channels: plan.runs.map((_, i) => read(`guard-${i}.log`, GUARD_CAP) ?? ""),
        durationMs: result.durationMs,
      };
    } finally {
      this.release(run.workspace);
    }
  }

  /** The task's run started ahead if there is one, otherwise a new one. */
  private async runFor(task: TaskState): Promise<CandidateRun> {
    const ahead = await this.takeReady(task.pack.dir);
    if (ahead) {
      this.stats.startedAhead++;
      return ahead;
    }
    const run = await this.startRun(task);
    this.stats.startedOnDemand++;
    return run;
  }

  /** The task's run started ahead; one still starting is waited for (it is further along than a new one). */
  private async takeReady(key: string): Promise<CandidateRun | undefined> {
    await this.starting.get(key);
    return this.ready.take(key);
  }

  /** Starts a run for the task's next candidate in the background, unless one is waiting or starting. */
  private readyNext(task: TaskState): void {
    const key = task.pack.dir;
    if (this.closed || this.ready.has(key) || this.starting.has(key)) return;
    if (this.busy + this.starting.size >= (this.options.readyCpuBudget ?? availableParallelism())) return;
    const starting = this.startRun(task)
      .then(async (run) => {
        await run.ready;
        if (this.closed) this.discard(run);
        else this.ready.put(key, run);
      })
      .catch((e) => this.options.warn?.(`could not start a sandbox ahead: ${(e as Error).message}`))
      .finally(() => this.starting.delete(key));
    this.starting.set(key, starting);
  }

  private startRun(task: TaskState): Promise<CandidateRun> {
    const plan = planTests(task.pack, {
      sources: task.testSources,
      repositoryModules: new Set(Object.keys(task.guard.modules)),
    });
    return startCandidateRun(this.runDeps(), task, plan, task.snapshot);
  }

  private runDeps(): CandidateRunDeps {
    return {
      sandbox: this.options.sandbox,
      factory: this.factory,
      runnerSource: this.runnerPath,
      emptyDir: this.emptyDir,
      setupMarginMs: this.options.setupMarginMs ?? 3000,
      guards: this.options.guards ?? true,
    };
  }

  /** Ends a run that never got a candidate and frees its workspace, in the background. */
  private discard(run: CandidateRun): void {
    this.stats.discarded++;
    const closing: Promise<void> = run
      .cancel()
      .then(() => this.release(run.workspace))
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** Unmounts a used workspace in the background: the verdict does not wait for it, close() does. */
  private release(workspace: Workspace): void {
    const closing: Promise<void> = workspace
      .close()
      .catch((e) =>
        this.options.warn?.(`could not remove workspace ${workspace.dir}: ${(e as Error).message}`),
      )
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** Resolves once no background work (runs starting ahead, workspaces being removed) is in progress. */
  async idle(): Promise<void> {
    while (this.starting.size || this.closing.size)
      await Promise.allSettled([...this.starting.values(), ...this.closing]);
  }

  /**
   * Ends the runs started ahead (for `packs` only, when given) and waits for background work. Without
   * `packs`, no process of this session is alive afterwards until the next `verify`.
   */
  async dropReadyRuns(packs?: ReadonlySet<TaskPack>): Promise<void> {
    const keys = packs && new Set([...packs].map((p) => p.dir));
    await Promise.allSettled([...this.starting].filter(([key]) => !keys || keys.has(key)).map(([, p]) => p));
    for (const run of this.ready.drain(keys)) this.discard(run);
    if (keys) await Promise.allSettled([...this.closing]);
    else await this.idle();
  }

  /** Unmounts and removes everything the session made. */
  async close(): Promise<void> {
    this.closed = true;
    await this.dropReadyRuns();
    await Promise.allSettled(this.tasks.values());
    await this.lowers.close();
    if (this.ownsRoot) rmSync(this.root, { recursive: true, force: true });
    else {
      rmSync(join(this.root, "tasks"), { recursive: true, force: true });
      rmSync(join(this.root, "runs"), { recursive: true, force: true });
      rmSync(join(this.root, "views"), { recursive: true, force: true });
      rmSync(this.emptyDir, { recursive: true, force: true });
    }
  }

  /**
   * Frees what the session holds for `pack`: runs started ahead, the views and the folder of its
   * snapshot. A long import verifies each task twice and moves on; without this every task's copy of
   * its repository would stay until the session ends. Call it when no verification of `pack` is in
   * flight; a later `verify` of it prepares it again.
   */
  async forget(pack: TaskPack): Promise<void> {
    const state = this.tasks.get(pack.dir);
    if (!state) return;
    this.tasks.delete(pack.dir);
    await this.dropReadyRuns(new Set([pack]));
    const task = await state.catch(() => undefined);
    if (task) await this.lowers.forget(task.snapshot.dir);
    rmSync(this.taskDirs.get(pack.dir)!, { recursive: true, force: true });
    this.taskDirs.delete(pack.dir);
  }

  /** The task's snapshot and restore mounts, built on first use. */
  task(pack: TaskPack): Promise<TaskState> {
    let state = this.tasks.get(pack.dir);
    if (!state) {
      const dir = join(this.root, "tasks", `${++this.taskCounter}-${pack.spec.id}`);
      this.taskDirs.set(pack.dir, dir);
      state = Promise.resolve().then(() =>
        prepareTask(pack, dir, {
          cacheDir: this.options.environmentCache ?? DEFAULT_ENVIRONMENT_CACHE,
          sandbox: this.options.sandbox,
          log: this.options.log,
        }),
      );
      this.tasks.set(pack.dir, state);
    }
    return state;
  }

  private toolchainModules(): Promise<Set<string>> {
    this.modules ??= toolchainModules();
    return this.modules;
  }

  /**
   * Runs the runner once with a trivial plan, so that a broken sandbox or toolchain is reported as what
   * it is instead of turning every candidate into `crashed`.
   */
  selfTest(): Promise<void> {
    this.selfTested ??= (async () => {
      await this.swept;
      const dir = join(this.root, "tasks", "self-test");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const snapshot = { dir, paths: new Set<string>(), files: [], bytes: 0 };
      const report = "<testsuites><testcase classname='t' name='ok'/></testsuites>";
      const plan: TestPlan = {
        runs: [
          {
            label: "self-test",
            argv: [
              "/usr/bin/python3",
              "-c",
              `import os; os.write(${REPORT_FD}, ${JSON.stringify(report)}.encode())`,
            ],
            keysOf: (c) => [c.name],
            idOf: (c) => c.name,
            canaries: [],
          },
        ],
        files: [],
        support: [],
        locate: () => null,
      };
      const run = await startCandidateRun(this.runDeps(), null, plan, snapshot);
      try {
        const result = await run.go({ token: "self-test", patch: "", bytecodeDirs: [] });
        const status = safeReadFile(join(run.workspace.outDir, "status.json"), 1 << 20);
        const got = safeReadFile(join(run.workspace.outDir, "report-0.xml"), REPORT_CAP);
        const token = status.ok
          ? (JSON.parse(status.data.toString("utf8")) as { token?: unknown }).token
          : undefined;
        if (!status.ok || token !== "self-test" || !got.ok || got.data.toString() !== report) {
          const why = !status.ok
            ? `status.json ${status.reason}`
            : token !== "self-test"
              ? "the runner did not pick up its token"
              : !got.ok
                ? `report ${got.reason}`
                : "report differs";
          const tail = `${result.stderr}${result.stdout}`.trim().split("\n").slice(-5).join(" | ");
          throw new SandboxError(
            `the ${this.sandboxName} sandbox cannot run the verifier's runner (${why}; exit ${result.exitCode}): ${tail}`,
            false,
          );
        }
      } finally {
        await run.workspace.close();
        // Its view (idmapped-lowers.ts) is of no use after this run.
        await this.lowers.forget(dir);
      }
    })();
    return this.selfTested;
  }
}

/**
 * Puts the runner into the session folder, compiled: Python would otherwise compile the source in every
 * sandbox (~5 ms per candidate here), since -B and the read-only bind leave it no bytecode cache. The
 * sandbox's interpreter is the host's /usr/bin/python3, so its bytecode is what that one makes. Falls
 * back to the source when it cannot be compiled (the self-test then says what is wrong).
 */
function installRunner(root: string): string {
  const compiled = join(root, "runner.pyc");
  try {
    execFileSync(
      "/usr/bin/python3",
      [
        "-I",
        "-S",
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
        RUNNER_SOURCE,
        compiled,
      ],
      { stdio: ["ignore", "ignore", "pipe"], env: {} },
    );
    return compiled;
  } catch {
    const source = join(root, "runner.py");
    copyFileSync(RUNNER_SOURCE, source);
    return source;
  }
}

function parseStatus(text: string | null): { token?: unknown; runs?: { timedOut?: boolean }[] } | null {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** Directories the patch writes files into ("" for the root), where bytecode could have appeared. */
function dirsOf(files: readonly { newPath: string | null }[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    if (f.newPath === null) continue;
    const slash = f.newPath.lastIndexOf("/");
    dirs.add(slash < 0 ? "" : f.newPath.slice(0, slash));
  }
  return [...dirs];
}
