import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Finding } from "../../src/contracts/finding.ts";
import { parseGuardLog } from "../../src/verify/guards/guard-log.ts";
import { GUARD_FD, guardFacts, guardSetup } from "../../src/verify/guards/guard-setup.ts";
import type { HarnessObject } from "../../src/verify/runners/harness-surfaces.ts";
import type { TestPlan } from "../../src/verify/runners/types.ts";

/**
 * A command run on the host the way sandbox-runner.py runs a test command: the report pipe on fd 3 and,
 * with the guards, the guard pipe on fd 4 (their inodes in GAGAR_REPORT_PIPE / GAGAR_GUARD_PIPE) and
 * the environment and support modules of guard-setup.ts, the support directory outside the workspace
 * as /gagar/support is. Without the guards: the same pipes and nothing else, as `guards: false` runs.
 * Not a sandbox: for guard behaviour only (the sandboxed runs are the contract and adversarial suites).
 */
const WITH_PIPES = `import fcntl, os, subprocess, sys
guard_out, report_out, guarded, argv = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4:]
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
    writeFileSync(guardLog, "");
    const child = spawn(
      "/usr/bin/python3",
      ["-c", WITH_PIPES, guardLog, reportLog, options.guards ? "1" : "0", ...options.argv],
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
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
