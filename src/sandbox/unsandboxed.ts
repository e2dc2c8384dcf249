import type { ChildProcess } from "node:child_process";
import { chmod, cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, SandboxError } from "../errors.ts";
import { findTools } from "./host-tools.ts";
import { prlimitArgs } from "./limits.ts";
import { prepareMountPoints } from "./mount-points.ts";
import { toRunResult } from "./outcome.ts";
import { translatePaths } from "./path-translation.ts";
import { checkSpec, isWithin, OUT, WORKSPACE } from "./run-spec.ts";
import { CLOSE_INHERITED_FDS } from "./staged-run.ts";
import { outcomeFromStartMarker, START_SCRIPT } from "./start-marker.ts";
import { supervise } from "./supervise.ts";
import type { Availability, RunResult, RunSpec, SandboxBackend } from "./types.ts";

export interface UnsandboxedOptions {
  /** Must be true: this backend runs candidate code with the verifier's own privileges. */
  acknowledgeNoIsolation: boolean;
  /** Where the warning goes on every run (default: stderr). */
  warn?: (message: string) => void;
}

const TOOLS = ["prlimit", "env", "sh", "bash"] as const;

export const UNSANDBOXED_WARNING =
  "gagar: WARNING: running candidate code UNSANDBOXED, with the verifier's own user, files, network and secrets. " +
  "Use only for code you trust; install bubblewrap (apt-get install bubblewrap) for real isolation.";

const WEAKNESSES = [
  "no isolation at all: the program runs as the verifier's user and can read, write and delete whatever that user can",
  "full network access, including services on the host's loopback",
  "sees every host process and can signal the verifier's",
  "read-only binds are copies that the program can overwrite (as root, file modes do not stop it)",
  "RLIMIT_NPROC does not bind root, and a process that calls setsid() outlives the run",
  "paths /workspace and /out exist only through rewriting of argv and environment",
];

/**
 * Last resort for hosts with no namespaces at all (e.g. unprivileged containers), only with an explicit
 * opt-in: rlimits still apply, the run's process group is SIGKILLed on timeout, the environment is still
 * exactly the allowlist, and every run says loudly on stderr that nothing is isolated.
 */
export function createUnsandboxedBackend(options: UnsandboxedOptions): SandboxBackend {
  if (options.acknowledgeNoIsolation !== true) {
    throw new ConfigError(
      "the unsandboxed backend runs candidate code without isolation; it needs an explicit opt-in (--allow-unsandboxed)",
    );
  }
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  return {
    name: "unsandboxed",
    isolated: false,

    async check(): Promise<Availability> {
      const { missing } = findTools(TOOLS);
      return { available: missing.length === 0, missing, weaknesses: [...WEAKNESSES] };
    },

    async run(spec: RunSpec): Promise<RunResult> {
      warn(UNSANDBOXED_WARNING);
      const checked = await checkSpec(spec);
      if (checked.root)
        throw new SandboxError(
          "the unsandboxed backend cannot run in another root filesystem (RunSpec.root)",
          false,
        );
      const { paths, missing } = findTools(TOOLS);
      if (missing.length)
        throw new SandboxError(`unsandboxed backend unavailable: ${missing.join("; ")}`, false);
      const home = await mkdtemp(join(tmpdir(), "gagar-unsandboxed-"));
      try {
        const table = new Map<string, string>([[WORKSPACE, checked.workspace]]);
        if (checked.outputDir) table.set(OUT, checked.outputDir);
        // No uid change here: the workspace stays with whoever runs gagar.
        await checked.handOver?.(process.getuid?.() ?? 0);
        const replacedPaths = await prepareMountPoints(checked);
        for (const mount of checked.readOnly) {
          if (isWithin(mount.target, WORKSPACE) || isWithin(mount.target, OUT)) {
            const dest = translatePaths(mount.target, table);
            await cp(mount.source, dest, { recursive: true, force: true });
            await chmod(dest, mount.kind === "dir" ? 0o555 : 0o444);
          } else {
            table.set(mount.target, mount.source);
          }
        }
        const env: Record<string, string> = {};
        for (const [name, value] of Object.entries(checked.env)) env[name] = translatePaths(value, table);
        for (const name of ["HOME", "TMPDIR"]) if (checked.env[name] === "/tmp") env[name] = home;
        if (checked.env.PYTHONPYCACHEPREFIX === "/tmp/pyc") env.PYTHONPYCACHEPREFIX = join(home, "pyc");
        const args = [
          "--norc", // see staged-run.ts: a socket stdin would make bash source ~/.bashrc
          "--noprofile",
          "-c",
          `${CLOSE_INHERITED_FDS}\nexec -c "$@"`,
          "gagar-unsandboxed",
          paths.prlimit,
          ...prlimitArgs(checked.limits),
          "--",
          paths.env,
          "-i",
          "-C",
          checked.workspace,
          "--",
          ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
          paths.sh,
          "-c",
          START_SCRIPT,
          "gagar-init",
          ...checked.argv.map((arg) => translatePaths(arg, table)),
        ];
        const run = await supervise({
          file: paths.bash,
          args,
          env: {},
          cwd: checked.workspace,
          detached: true,
          timeoutMs: checked.timeoutMs,
          stdin: checked.stdin,
          stdinWaitMs: checked.stdinWaitMs,
          onStdout: checked.onStdout,
          outputCapBytes: checked.outputCapBytes,
          terminate: async (child: ChildProcess) => killGroup(child.pid),
        });
        // The group outlives its leader: background children that did not setsid() die here.
        killGroup(run.pid);
        const exit = { exitCode: run.exitCode, signal: run.signal };
        return toRunResult(run, outcomeFromStartMarker(run.status, exit), replacedPaths);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
  };
}

function killGroup(pgid: number | undefined): void {
  if (pgid === undefined || pgid <= 1) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // the group is already empty
  }
}
