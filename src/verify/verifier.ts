import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxError } from "../errors.ts";
import type { Mount, RunResult, SandboxBackend } from "../sandbox/types.ts";
import { type Graded, grade } from "./grade.ts";
import { type GateLimits, gatePatch, type ProtectedPolicy } from "./patch-gate.ts";
import { encodeRunnerPlan } from "./runner-plan.ts";
import { safeReadFile } from "./safe-read.ts";
import { claimSession, SESSION_PREFIX, sweepStaleSessions } from "./stale-sessions.ts";
import { scanSuspicious } from "./suspicious-patterns.ts";
import type { TaskPack } from "./task-pack.ts";
import { prepareTask, type TaskState } from "./task-state.ts";
import { planTests, REPORT_FD, type TestPlan } from "./test-plan.ts";
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
 * Apply and tests share one sandbox run (security.md §4.2 uses two): until the tests start, the only
 * process in it is `git apply`, so there is nothing a second, fresh sandbox would get rid of, and the
 * sandbox's setup (uid lease, chown of the workspace) is paid once.
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
  warn?: (message: string) => void;
}

/** The verifier's result for one patch: the graded test run, or a gate rejection in the same shape. */
export type Outcome = Graded;

const RUNNER_SOURCE = fileURLToPath(new URL("./sandbox-runner.py", import.meta.url));
const RUNNER = "/gagar/runner.py";
const PLAN = "/gagar/plan";
const PATCH = "/gagar/patch.diff";
const REPORT_CAP = 16 * 2 ** 20;
const APPLY_ARGV = ["git", "-c", "core.hooksPath=/dev/null", "apply", "--verbose", "--whitespace=nowarn"];

export class Verifier {
  private readonly root: string;
  private readonly ownsRoot: boolean;
  private readonly factory: WorkspaceFactory;
  private readonly tasks = new Map<string, Promise<TaskState>>();
  private readonly closing = new Set<Promise<void>>();
  private modules: Promise<Set<string>> | undefined;
  private ready: Promise<void> | undefined;
  private taskCounter = 0;
  private readonly emptyDir: string;
  private readonly swept: Promise<void>;
  private closed = false;

  constructor(private readonly options: VerifierOptions) {
    this.ownsRoot = options.workRoot === undefined;
    this.root = options.workRoot ?? mkdtempSync(join(tmpdir(), SESSION_PREFIX));
    claimSession(this.root);
    // Leftovers of killed sessions (their per-candidate mounts) are cleaned before the first run.
    this.swept = this.ownsRoot ? sweepStaleSessions(tmpdir()).then(() => undefined) : Promise.resolve();
    this.emptyDir = join(this.root, "empty");
    mkdirSync(join(this.root, "tasks"), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, "runs"), { recursive: true, mode: 0o700 });
    copyFileSync(RUNNER_SOURCE, join(this.root, "runner.py"));
    mkdirSync(this.emptyDir, { recursive: true, mode: 0o755 });
    this.factory = new WorkspaceFactory(
      join(this.root, "runs"),
      options.workspaceLimits ?? DEFAULT_WORKSPACE_LIMITS,
      options.warn,
    );
  }

  get sandboxName(): string {
    return this.options.sandbox.name;
  }

  /** Verifies `patch` for `pack`. Rejects only for verifier-side faults (callers map them to infra-error). */
  async verify(pack: TaskPack, patch: string): Promise<Outcome> {
    if (this.closed) throw new SandboxError("verifier is closed", false);
    const started = performance.now();
    const modules = pack.spec.language === "python" ? this.toolchainModules() : undefined;
    await this.selfTest();
    const task = await this.task(pack);
    const gateStarted = performance.now();
    const gate = gatePatch(patch, {
      policy: task.policy,
      protectedPolicy: this.options.protectedPolicy,
      limits: this.options.gateLimits,
      shadowModules: await modules,
      pristineHas: (p) => task.snapshot.paths.has(p),
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
    const plan = planTests(pack);
    const workspace = await this.factory.create(task.snapshot);
    try {
      const token = randomBytes(16).toString("hex");
      const result = await this.runSandboxed(task, plan, workspace, gate.patch, dirsOf(gate.files), token);
      const graded = grade({
        token,
        failToPass: pack.spec.failToPass,
        passToPass: pack.spec.passToPass,
        plan,
        timeoutSec: pack.spec.timeoutSec,
        sandbox: result,
        status: safeReadFile(join(workspace.outDir, "status.json"), 1 << 20),
        reports: plan.runs.map((_, i) => safeReadFile(join(workspace.outDir, `report-${i}.xml`), REPORT_CAP)),
      });
      const findings = [...gate.findings, ...scanSuspicious(gate.files), ...graded.findings];
      for (const path of result.replacedPaths ?? []) {
        findings.push({
          kind: "test-tampering",
          severity: "critical",
          file: path.replace(/^\/workspace\//, ""),
          message: `something stood where a protected file is laid over the workspace (${path}); it was removed`,
        });
      }
      const outcome: Outcome = {
        ...graded,
        durationsMs: {
          gate: gateMs,
          workspace: workspace.prepareMs,
          sandbox: result.durationMs,
          ...graded.durationsMs,
          total: performance.now() - started,
        },
        findings,
      };
      return outcome;
    } finally {
      this.release(workspace);
    }
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

  /** Unmounts and removes everything the session made. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.tasks.values());
    await Promise.allSettled([...this.closing]);
    if (this.ownsRoot) rmSync(this.root, { recursive: true, force: true });
    else {
      rmSync(join(this.root, "tasks"), { recursive: true, force: true });
      rmSync(join(this.root, "runs"), { recursive: true, force: true });
      rmSync(this.emptyDir, { recursive: true, force: true });
    }
  }

  /** The task's snapshot and restore mounts, built on first use. */
  task(pack: TaskPack): Promise<TaskState> {
    let state = this.tasks.get(pack.dir);
    if (!state) {
      const dir = join(this.root, "tasks", `${++this.taskCounter}-${pack.spec.id}`);
      state = Promise.resolve().then(() => prepareTask(pack, dir));
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
    this.ready ??= (async () => {
      await this.swept;
      const dir = join(this.root, "tasks", "self-test");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const snapshot = { dir, paths: new Set<string>(), files: [], bytes: 0 };
      const workspace = await this.factory.create(snapshot);
      try {
        const report = "<testsuites><testcase classname='t' name='ok'/></testsuites>";
        const plan: TestPlan = {
          flavor: "pytest",
          runs: [
            {
              label: "self-test",
              argv: [
                "/usr/bin/python3",
                "-c",
                `import os; os.write(${REPORT_FD}, ${JSON.stringify(report)}.encode())`,
              ],
              flavor: "pytest",
              canaries: [],
            },
          ],
          files: [],
        };
        const result = await this.runSandboxed(null, plan, workspace, "", [], "self-test");
        const status = safeReadFile(join(workspace.outDir, "status.json"), 1 << 20);
        const got = safeReadFile(join(workspace.outDir, "report-0.xml"), REPORT_CAP);
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
        await workspace.close();
      }
    })();
    return this.ready;
  }

  private async runSandboxed(
    task: TaskState | null,
    plan: TestPlan,
    workspace: Workspace,
    patch: string,
    bytecodeDirs: string[],
    token: string,
  ): Promise<RunResult> {
    // Only the runner can read this before candidate code exists; it deletes it (sandbox-runner.py).
    writeFileSync(join(workspace.outDir, ".gagar-token"), token, { mode: 0o600 });
    const readOnly: Mount[] = [
      { source: join(this.root, "runner.py"), target: RUNNER },
      { source: join(workspace.roDir, "plan"), target: PLAN },
    ];
    if (patch) {
      writeFileSync(join(workspace.roDir, "patch.diff"), patch, { mode: 0o644 });
      readOnly.push({ source: join(workspace.roDir, "patch.diff"), target: PATCH });
    }
    readOnly.push(...(task?.restore ?? []));
    plan.files.forEach((file, i) => {
      const source = join(workspace.roDir, `canary-${i}`);
      writeFileSync(source, file.content, { mode: 0o644 });
      readOnly.push({ source, target: `/workspace/${file.path}` });
    });
    // pytest loads its assertion-rewrite cache (<dir>/__pycache__/<test>.cpython-*-pytest-*.pyc) even with
    // PYTHONDONTWRITEBYTECODE set, checking only the source's mtime and size. Candidate code imported by
    // one test module could plant a forged cache for the next one; an empty read-only __pycache__ in
    // every directory with graded Python files closes that (C5). PYTHONPYCACHEPREFIX is unset (below)
    // so that this is where pytest and Python look.
    for (const dir of pycacheDirs(readOnly))
      readOnly.push({ source: this.emptyDir, target: `${dir}/__pycache__` });
    const runnerPlan = encodeRunnerPlan({
      killOthers: this.sandboxName !== "unsandboxed",
      applyArgv: APPLY_ARGV,
      bytecodeDirs,
      reportCapBytes: REPORT_CAP,
      runs: plan.runs.map((r) => ({ label: r.label, argv: r.argv, reportFd: REPORT_FD })),
    });
    writeFileSync(join(workspace.roDir, "plan"), runnerPlan, { mode: 0o644 });
    const timeoutSec = task?.pack.spec.timeoutSec ?? 30;
    const spec = {
      argv: [
        "/usr/bin/python3",
        "-I",
        "-S",
        "-B",
        RUNNER,
        PLAN,
        "/workspace",
        "/out",
        ...(patch ? [PATCH] : []),
      ],
      workspace: workspace.dir,
      outputDir: workspace.outDir,
      readOnly,
      // The sandbox's base env sends bytecode to /tmp/pyc. That makes Python ignore the toolchain's own
      // compiled stdlib and recompile it on every run (~0.5 s of CPU for pytest), and it moves pytest's
      // rewrite cache to a directory the candidate can write. Unset, caches live beside the sources: the
      // workspace holds no bytecode by construction (snapshot.ts, the gate, the runner), and the
      // graded directories get a read-only empty __pycache__ (above).
      env: { PYTHONPYCACHEPREFIX: "" },
      timeoutMs: timeoutSec * 1000 + (this.options.setupMarginMs ?? 3000),
    };
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        const started = performance.now();
        const result = await this.options.sandbox.run(spec);
        // The wall time of the whole sandbox call (setup and teardown included), not just the program's.
        return { ...result, durationMs: performance.now() - started };
      } catch (e) {
        if (!(e instanceof SandboxError) || !e.retryable || attempt >= retries) throw e;
        this.options.warn?.(`sandbox run failed (${e.message}); retrying`);
      }
    }
  }
}

/** `/workspace/<dir>` of every read-only Python file laid over the workspace (tests, conftest, canaries). */
function pycacheDirs(mounts: readonly Mount[]): string[] {
  const dirs = new Set<string>();
  for (const m of mounts) {
    if (m.target.startsWith("/workspace/") && m.target.endsWith(".py"))
      dirs.add(m.target.slice(0, m.target.lastIndexOf("/")));
  }
  return [...dirs];
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
