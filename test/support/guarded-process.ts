import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Finding } from "../../src/contracts/finding.ts";
import { parseGuardLog } from "../../src/verify/guards/guard-log.ts";
import { GUARD_FD, guardFacts, guardSetup } from "../../src/verify/guards/guard-setup.ts";
import type { HarnessObject } from "../../src/verify/runners/harness-surfaces.ts";
import type { CanaryCheck, TestPlan, TestRunner } from "../../src/verify/runners/types.ts";
import { SUPPORT_DIR } from "../../src/verify/runners/types.ts";
import { parseJunit } from "../../src/verify/verdict/junit-report.ts";

/**
 * A command run on the host the way sandbox-runner.py runs a test command: the report pipe on fd 3 and,
 * with the guards, the guard pipe on fd 4 (their inodes in GAGAR_REPORT_PIPE / GAGAR_GUARD_PIPE) and
 * the environment and support modules of guard-setup.ts, the support directory outside the workspace
 * as /gagar/support is. Without the guards: the same pipes and nothing else, as `guards: false` runs.
 * Not a sandbox: for guard behaviour only (the sandboxed runs are the contract and adversarial suites).
 */
const WITH_PIPES = `import fcntl, os, subprocess, sys
import resource
guard_out, report_out, cpu_out, guarded, argv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5:]
raw = [os.pipe(), os.pipe()]
ends = [(fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 20), fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 20)) for r, w in raw]
for r, w in raw:
    os.close(r)
    os.close(w)
targets = (3, ${GUARD_FD}) if guarded else (3,)
env = dict(os.environ)
for target, (r, w) in zip(targets, ends):
    os.dup2(w, target, inheritable=True)
    os.close(w)
if guarded:
    env["GAGAR_REPORT_PIPE"] = str(os.fstat(3).st_ino)
    env["GAGAR_GUARD_PIPE"] = str(os.fstat(${GUARD_FD}).st_ino)
child = subprocess.Popen(argv, pass_fds=targets, env=env)
for target in targets:
    os.close(target)
import threading
def drain(fd, path):
    with open(path, "wb") as f:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            f.write(chunk)
threads = [threading.Thread(target=drain, args=(ends[i][0], out)) for i, out in enumerate((report_out, guard_out)[: len(targets)])]
for t in threads:
    t.start()
code = child.wait()
for t in threads:
    t.join()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(cpu_out, "w") as f:
    f.write(str(usage.ru_utime + usage.ru_stime))
sys.exit(code)
`;

export interface ProcessRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Whether a guard said it started (the run was watched); false without the guards. */
  started: boolean;
  violations: Finding[];
  ambiguous: Finding[];
  /** What reached the report pipe (fd 3). */
  report: string;
  /** CPU time (user and system) of the command and every process it waited for. */
  cpuMs: number;
}

export interface ProcessOptions {
  /** The workspace (cwd) and what the guards take for it. */
  workspace: string;
  argv: string[];
  /** Workspace-relative hidden test files (what the guards protect). */
  hidden?: string[];
  /** The objects the guard watches (a plan's `harness`); default: Node's own. */
  harness?: HarnessObject[];
  guards: boolean;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export async function runProcess(options: ProcessOptions): Promise<ProcessRun> {
  const scratch = mkdtempSync(join(tmpdir(), "gagar-guarded-"));
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.workspace,
      ...options.env,
    };
    if (options.guards) {
      const hidden = options.hidden ?? [];
      const facts = guardFacts(hidden, (f) => readFileSync(join(options.workspace, f), "utf8"), hidden);
      const plan = {
        files: [],
        runs: [],
        support: [],
        locate: () => null,
        harness: options.harness,
      } as TestPlan;
      const setup = guardSetup(facts, plan, options.argv, options.env ?? {});
      for (const f of setup.support) writeFileSync(join(scratch, f.path), f.content);
      Object.assign(env, setup.env, {
        GAGAR_GUARD: JSON.stringify({ ...JSON.parse(setup.env.GAGAR_GUARD!), workspace: options.workspace }),
        NODE_OPTIONS: setup.env.NODE_OPTIONS!.replace("/gagar/support", scratch),
      });
      if (setup.env.PYTHONPATH) env.PYTHONPATH = setup.env.PYTHONPATH.replace("/gagar/support", scratch);
    }
    const guardLog = join(scratch, "guard.log");
    const reportLog = join(scratch, "report.log");
    const cpuLog = join(scratch, "cpu.log");
    writeFileSync(guardLog, "");
    writeFileSync(cpuLog, "0");
    const child = spawn(
      "/usr/bin/python3",
      ["-c", WITH_PIPES, guardLog, reportLog, cpuLog, options.guards ? "1" : "0", ...options.argv],
      { cwd: options.workspace, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    clearTimeout(timer);
    const log = parseGuardLog(readFileSync(guardLog, "utf8"));
    return {
      status,
      stdout,
      stderr,
      started: log.started,
      violations: log.violations,
      ambiguous: log.ambiguous,
      report: readFileSync(reportLog, "utf8"),
      cpuMs: Number(readFileSync(cpuLog, "utf8")) * 1000,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface PlannedRunResult {
  /** Per test id (the adapter's `idOf`), its status; canaries included. */
  tests: Record<string, string>;
  runs: ProcessRun[];
  canaries: CanaryCheck[];
  /** Milliseconds of the runs together. */
  wallMs: number;
  /** CPU milliseconds of the runs together. */
  cpuMs: number;
}

/**
 * A runner adapter's plan for real, on the host: its planned files laid over a copy of the workspace
 * (wrappers, canaries), its support modules in a directory of their own, each planned run through
 * `runProcess` with its report read back. For comparing runs with and without the guards on real
 * suites; the verdict logic is the verifier's (not used here).
 */
export async function runPlanned(options: {
  runner: TestRunner;
  workspace: string;
  testFiles: string[];
  command?: string[];
  guards: boolean;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<PlannedRunResult> {
  const sources = new Map(
    options.testFiles.map((f) => [f, readFileSync(join(options.workspace, f), "utf8")]),
  );
  const plan = options.runner.plan({
    command: options.command ?? options.runner.defaultCommand,
    testFiles: options.testFiles,
    sources,
  });
  const support = mkdtempSync(join(tmpdir(), "gagar-planned-support-"));
  const laid: [string, string | null][] = [];
  try {
    for (const file of plan.support) writeFileSync(join(support, file.path), file.content);
    for (const file of plan.files) {
      const path = join(options.workspace, file.path);
      laid.push([path, existsSync(path) ? readFileSync(path, "utf8") : null]);
      writeFileSync(path, file.content);
    }
    const tests: Record<string, string> = {};
    const runs: ProcessRun[] = [];
    const started = performance.now();
    for (const planned of plan.runs) {
      const argv = planned.argv.map((a) => a.replaceAll(SUPPORT_DIR, support));
      const run = await runProcess({
        workspace: options.workspace,
        argv,
        hidden: [...options.testFiles, ...plan.files.map((f) => f.path)],
        harness: plan.harness,
        guards: options.guards,
        env: options.env,
        timeoutMs: options.timeoutMs,
      });
      runs.push(run);
      for (const c of run.report.trim() ? parseJunit(run.report) : []) tests[planned.idOf(c)] = c.status;
    }
    return {
      tests,
      runs,
      canaries: plan.runs.flatMap((r) => r.canaries),
      wallMs: performance.now() - started,
      cpuMs: runs.reduce((sum, r) => sum + r.cpuMs, 0),
    };
  } finally {
    for (const [path, before] of laid.reverse()) {
      if (before === null) rmSync(path, { force: true });
      else writeFileSync(path, before);
    }
    rmSync(support, { recursive: true, force: true });
  }
}
