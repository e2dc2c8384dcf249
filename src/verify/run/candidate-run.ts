import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { SandboxError } from "../../errors.ts";
import type { Mount, RunResult, SandboxBackend } from "../../sandbox/types.ts";
import { GUARD_FD, guardSetup } from "../guards/guard-setup.ts";
import { REPORT_FD, SUPPORT_DIR, type TestPlan } from "../runners/types.ts";
import type { Snapshot } from "../workspace/snapshot.ts";
import type { TaskState } from "../workspace/task-state.ts";
import type { Workspace, WorkspaceFactory } from "../workspace/workspace.ts";
import { HOST_PREFIX, hostRuntime } from "./host-runtime.ts";
import {
  encodeRunnerPlan,
  encodeRunnerRequest,
  INTERRUPT_GRACE_MS,
  type RunnerRequest,
} from "./runner-plan.ts";

/**
 * One sandbox run of the trusted runner for one candidate, started before the candidate is known.
 *
 * Everything that does not depend on the patch happens at start: the workspace on the task's snapshot,
 * the canaries and the plan, the sandbox with its binds, and the runner's interpreter start-up. The
 * runner then blocks on stdin (RunSpec.stdin). `go` hands it the candidate (token, patch) and resolves
 * when the run is over; the task's timeout counts from there. So a verifier can keep the next run of a
 * task ready while the current one tests, and a candidate pays only for applying and testing its patch.
 */
export interface CandidateRun {
  plan: TestPlan;
  workspace: Workspace;
  /** Resolves once the runner is up and waiting (or the run has ended). */
  ready: Promise<void>;
  /** Delivers the candidate; resolves with the run's result (durationMs from delivery). Call once. */
  go(request: RunnerRequest): Promise<RunResult>;
  /** Tells a run that was never given a candidate to end; resolves when it has. */
  cancel(): Promise<void>;
  /** The run ended (or failed) before it got a candidate: it cannot take one. */
  readonly ended: boolean;
}

export interface CandidateRunDeps {
  sandbox: SandboxBackend;
  factory: WorkspaceFactory;
  /** Host path of sandbox-runner.py, or of its bytecode (a .pyc file, which python3 runs as well). */
  runnerSource: string;
  /** An empty host directory (bound read-only as __pycache__). */
  emptyDir: string;
  /** Extra wall time on top of the task's timeout, for applying the patch. */
  setupMarginMs: number;
  /** Load the guards into the test process (VerifierOptions.guards). */
  guards: boolean;
}

const RUNNER_DIR = "/gagar";
/** The first thing the runner prints (sandbox-runner.py), before it blocks on stdin. */
const READY_LINE = "gagar-runner: waiting for the candidate\n";
const PLAN = "/gagar/plan";
export const REPORT_CAP = 16 * 2 ** 20;
/** How the runner calls git to apply the gate's rendering (the differential test of the gate calls it the same way). */
export const APPLY_ARGS = ["-c", "core.hooksPath=/dev/null", "apply", "--verbose", "--whitespace=nowarn"];
/** What a run without a task (the verifier's self-test) gets as its timeout. */
const DEFAULT_TIMEOUT_SEC = 30;

/** What a run of another plan than the task's own changes (Verifier.runPlan: behavioural probes). */
export interface RunOverrides {
  /** Each run gets the second channel (fd GUARD_FD) without the guards, and these variables. */
  channelEnv?: Record<string, string>;
  /** Instead of the task's timeoutSec. */
  timeoutSec?: number;
}

export async function startCandidateRun(
  deps: CandidateRunDeps,
  task: TaskState | null,
  plan: TestPlan,
  snapshot: Snapshot,
  overrides: RunOverrides = {},
): Promise<CandidateRun> {
  const workspace = await deps.factory.create(snapshot);
  try {
    const spec = runSpec(deps, task, plan, workspace, overrides);
    let deliver: (input: string) => void = () => {};
    const stdin = new Promise<string>((resolve) => {
      deliver = resolve;
    });
    let delivered = false;
    let ended = false;
    let up: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      up = resolve;
    });
    let seen = "";
    const onStdout = (chunk: Buffer) => {
      if (seen.length > READY_LINE.length) return;
      seen += chunk.toString("latin1");
      if (seen.startsWith(READY_LINE)) up();
    };
    const handOver = (uid: number) => workspace.attach(uid);
    const result = deps.sandbox.run({ ...spec, stdin, onStdout, handOver });
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    void settled.then(() => {
      ended = true;
      up();
    });
    return {
      plan,
      workspace,
      ready,
      go(request) {
        let input: string;
        try {
          input = encodeRunnerRequest(request);
        } catch (error) {
          delivered = true;
          deliver("");
          return Promise.reject(error);
        }
        delivered = true;
        const started = performance.now();
        deliver(input);
        // The wall time of the candidate's part (apply, tests, teardown), not the set-up made ahead.
        return result.then((r) => ({ ...r, durationMs: performance.now() - started }));
      },
      async cancel() {
        // An empty stdin ends the runner at once; the sandbox cleans up as after any run.
        if (!delivered) deliver("");
        delivered = true;
        await settled;
      },
      get ended() {
        return ended && !delivered;
      },
    };
  } catch (error) {
    await workspace.close().catch(() => {});
    throw error;
  }
}

function runSpec(
  deps: CandidateRunDeps,
  task: TaskState | null,
  plan: TestPlan,
  workspace: Workspace,
  overrides: RunOverrides,
) {
  const readOnly: Mount[] = [
    { source: deps.runnerSource, target: runnerTarget(deps) },
    { source: join(workspace.roDir, "plan"), target: PLAN },
  ];
  readOnly.push(...(task?.restore ?? []));
  plan.files.forEach((file, i) => {
    const source = join(workspace.roDir, `canary-${i}`);
    writeFileSync(source, file.content, { mode: 0o644 });
    readOnly.push({ source, target: `/workspace/${file.path}` });
  });
  // The guards run inside the test process; without a sandbox's mounts their paths do not exist.
  const guard =
    task && deps.guards && deps.sandbox.isolated
      ? guardSetup(task.guard, plan, task.pack.command, task.pack.spec.test.env)
      : null;
  [...plan.support, ...(guard?.support ?? [])].forEach((file, i) => {
    const source = join(workspace.roDir, `support-${i}`);
    writeFileSync(source, file.content, { mode: 0o644 });
    readOnly.push({ source, target: `${SUPPORT_DIR}/${file.path}` });
  });
  // pytest loads its assertion-rewrite cache (<dir>/__pycache__/<test>.cpython-*-pytest-*.pyc) even with
  // PYTHONDONTWRITEBYTECODE set, checking only the source's mtime and size. Candidate code imported by
  // one test module could plant a forged cache for the next one; an empty read-only __pycache__ in
  // every directory with graded Python files closes that (C5). PYTHONPYCACHEPREFIX is unset (below)
  // so that this is where pytest and Python look.
  for (const dir of pycacheDirs(readOnly))
    readOnly.push({ source: deps.emptyDir, target: `${dir}/__pycache__` });
  // In another root filesystem the runner, and git for applying the patch, are the host's, brought in
  // read-only under /gagar/host (host-runtime.ts): nothing in the root can stand in for them.
  const root = task?.environment.root;
  const runtime = hostRuntime();
  if (root && runtime.missing.length)
    throw new SandboxError(
      `cannot run the verifier's runner in another root: ${runtime.missing.join("; ")}`,
      false,
    );
  const host = (program: string) => (root ? runtime.wrap(program) : [program]);
  if (root) readOnly.push({ source: "/usr", target: `${HOST_PREFIX}/usr` });
  const timeoutSec = overrides.timeoutSec ?? task?.pack.spec.timeoutSec ?? DEFAULT_TIMEOUT_SEC;
  const runnerPlan = encodeRunnerPlan({
    killOthers: deps.sandbox.isolated,
    applyArgv: [...host("/usr/bin/git"), ...APPLY_ARGS],
    reportCapBytes: REPORT_CAP,
    timeoutMs: timeoutSec * 1000,
    graceMs: INTERRUPT_GRACE_MS,
    runs: plan.runs.map((r) => ({
      label: r.label,
      argv: guard ? guard.argv(r.argv) : r.argv,
      reportFd: REPORT_FD,
      guardFd: guard || overrides.channelEnv ? GUARD_FD : 0,
    })),
  });
  writeFileSync(join(workspace.roDir, "plan"), runnerPlan, { mode: 0o644 });
  return {
    argv: [...host("/usr/bin/python3"), "-I", "-S", "-B", runnerTarget(deps), PLAN, "/workspace", "/out"],
    root,
    workspace: workspace.dir,
    outputDir: workspace.outDir,
    readOnly,
    // The sandbox's base env sends bytecode to /tmp/pyc. That makes Python ignore the toolchain's own
    // compiled stdlib and recompile it on every run (the bulk of pytest's start), and it moves pytest's
    // rewrite cache to a directory the candidate can write. Unset, caches live beside the sources: the
    // workspace holds no bytecode by construction (snapshot.ts, the gate, the runner), and the
    // graded directories get a read-only empty __pycache__ (above).
    env: { ...task?.pack.spec.test.env, ...guard?.env, ...overrides.channelEnv, PYTHONPYCACHEPREFIX: "" },
    // The runner interrupts the tests at timeoutSec and kills them a grace later; the sandbox's own
    // timeout is the backstop behind both.
    timeoutMs: timeoutSec * 1000 + INTERRUPT_GRACE_MS + deps.setupMarginMs,
    ...(task?.pack.runner.memoryBytes && { limits: { memoryBytes: task.pack.runner.memoryBytes } }),
  };
}

function runnerTarget(deps: CandidateRunDeps): string {
  return `${RUNNER_DIR}/${basename(deps.runnerSource)}`;
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
