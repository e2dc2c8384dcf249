import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { SUPPORT_DIR, type TestPlan } from "../runners/types.ts";
import { parseJunit } from "../verdict/junit-report.ts";
import { type GuardLog, parseGuardLog } from "./guard-log.ts";
import { GUARD_FD, guardFacts, guardSetup } from "./guard-setup.ts";

/**
 * A real pytest session over a directory, with the pytest guard loaded the way a verification loads it
 * (guard-setup.ts: its environment, its command line, the module in a support directory outside the
 * workspace, a pipe on fd 4 whose inode GAGAR_GUARD_PIPE names, as sandbox-runner.py sets it up) or
 * without it, on the host. The sandbox itself adds nothing the guard sees, so what differs between
 * the two sessions is the guard alone. For tests that compare the two (behaviour preservation, whole
 * real suites) and that look at what the guard reports on real code.
 */

export interface PytestSession {
  /** pytest's exit status. */
  status: number | null;
  /** Outcome per test, `classname::name` from the JUnit report. */
  outcomes: Map<string, string>;
  /** stdout and stderr, in order. */
  output: string;
  /** What the guard reported (empty without it). */
  guard: GuardLog;
  wallMs: number;
}

export interface SessionOptions {
  /** The workspace: pytest runs here. */
  dir: string;
  /** The task's test command, without the JUnit option this adds. */
  command: readonly string[];
  /** Workspace-relative hidden test files: what the guard protects. */
  hidden: readonly string[];
  guard: boolean;
  /** The task's own test environment (`test.env`). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** A plan with no files: the guards then watch only what the command itself names. */
export const NO_PLAN = { files: [], runs: [], support: [], locate: () => null } as unknown as TestPlan;

/** Starts argv with a pipe on fd 4 (its inode in GAGAR_GUARD_PIPE) and copies what arrives to `out`. */
export const WITH_GUARD_PIPE = `import fcntl, os, subprocess, sys
out, argv = sys.argv[1], sys.argv[2:]
r, w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
os.dup2(w, ${GUARD_FD}, inheritable=True)
os.close(w)
env = dict(os.environ, GAGAR_GUARD_PIPE=str(os.fstat(${GUARD_FD}).st_ino))
child = subprocess.Popen(argv, pass_fds=(${GUARD_FD},), env=env)
os.close(${GUARD_FD})
with open(out, "wb") as f:
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        f.write(chunk)
sys.exit(child.wait())
`;

export async function runPytestSession(options: SessionOptions): Promise<PytestSession> {
  const scratch = mkdtempSync(join(tmpdir(), "gagar-pytest-session-"));
  try {
    // Beside the workspace, the same path for both sessions of a comparison: pytest prints it.
    const report = `${options.dir}.report.xml`;
    const records = join(scratch, "guard.log");
    writeFileSync(records, "");
    const command = [...options.command, `--junitxml=${report}`];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: scratch,
      LANG: "C.UTF-8",
      PYTHONDONTWRITEBYTECODE: "1",
      ...options.env,
    };
    let argv = command;
    if (options.guard) {
      const read = (rel: string) => readFileSync(join(options.dir, rel), "utf8");
      const facts = guardFacts(options.hidden, read, workspaceFiles(options.dir));
      const setup = guardSetup(facts, NO_PLAN, options.command, options.env);
      const support = join(scratch, "support");
      mkdirSync(support);
      for (const file of setup.support) writeFileSync(join(support, file.path), file.content);
      const here = (value: string) => value.split(SUPPORT_DIR).join(support);
      for (const [name, value] of Object.entries(setup.env)) env[name] = here(value);
      const config = JSON.parse(setup.env.GAGAR_GUARD!);
      env.GAGAR_GUARD = JSON.stringify({ ...config, workspace: options.dir });
      argv = setup.argv(command).map(here);
    }
    const started = performance.now();
    const run = await spawnCollect(
      "/usr/bin/python3",
      ["-c", WITH_GUARD_PIPE, records, ...argv],
      options.dir,
      env,
      options.timeoutMs ?? 600_000,
    );
    const wallMs = performance.now() - started;
    let outcomes = new Map<string, string>();
    try {
      outcomes = new Map(
        parseJunit(readFileSync(report, "utf8")).map((c) => [`${c.classname}::${c.name}`, c.status]),
      );
    } catch {
      // no report: the session failed before writing one, which `status` and `output` show
    }
    return {
      status: run.status,
      outcomes,
      output: run.output,
      guard: parseGuardLog(readFileSync(records, "utf8")),
      wallMs,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(`${options.dir}.report.xml`, { force: true });
  }
}

function spawnCollect(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output: Buffer.concat(chunks).toString("utf8") }));
  });
}

/** Workspace-relative paths of the files under `dir`, version-control and cache directories left out. */
export function workspaceFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name === ".git" || entry.name === "__pycache__" || entry.name === "node_modules") continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(relative(dir, path));
    }
  };
  walk(dir);
  return files.sort();
}
