import { SandboxError } from "../errors.ts";
import { outcomeFromBwrapStatus } from "./bwrap-status.ts";
import { CuratedEtcCache, type HostBind, SANDBOX_HOSTNAME } from "./curated-etc.ts";
import { hostPrerequisites, trialRun } from "./host-checks.ts";
import { findTools, versionOf } from "./host-tools.ts";
import { toRunResult } from "./outcome.ts";
import { hostRootLayout, type RootEntry } from "./root-layout.ts";
import { type CheckedSpec, checkSpec, OUT, WORKSPACE } from "./run-spec.ts";
import { buildSeccompFilter, hostFilterArch } from "./seccomp.ts";
import { reaperArgs, type Staged, withStagedRun } from "./staged-run.ts";
import { supervise, terminateNamespace } from "./supervise.ts";
import type { Availability, RunResult, RunSpec, SandboxBackend } from "./types.ts";
import { defaultUidRange, UidPool, type UidRange } from "./uid-pool.ts";
import { NAMESPACE_WEAKNESSES } from "./weaknesses.ts";

export interface BwrapOptions {
  /** Dedicated host uids, one per concurrent run (default 61000–61063). */
  uidRange?: UidRange;
  /** Where per-run staging directories go; must be traversable by other users (default /tmp). */
  runDirBase?: string;
}

const TOOLS = ["bwrap", "unshare", "setpriv", "mount", "chown", "bash"] as const;

/**
 * The recommended backend (docs/security.md §4.2): each run gets its own unprivileged host uid and
 * a bubblewrap sandbox with every namespace unshared, no network, a minimal read-only root (/usr plus a
 * curated /etc, never the host's `/`), a private size-capped /tmp, rlimits and oom_score_adj=1000.
 *
 * The chain (see `reaperArgs` for its head):
 *   setpriv --pdeathsig → unshare (root: private pid and mount namespaces, waits and reaps)
 *   → bash (chown the workspace if needed, mount -a the staged bind sources, rlimits, oom_score_adj)
 *   → setpriv (run uid, no caps, no new privs) → bwrap (pid 1 of the staging pid namespace) → program.
 * It starts with an empty environment, because bwrap is pid 1 of the sandbox and its own
 * /proc/1/environ is readable from inside.
 */
export function createBwrapBackend(options: BwrapOptions = {}): SandboxBackend {
  const pool = new UidPool(options.uidRange ?? defaultUidRange);
  const filterArch = hostFilterArch();
  const seccompFilter = filterArch ? buildSeccompFilter(filterArch) : undefined;
  const runDirBase = options.runDirBase ?? "/tmp";
  let layout: RootEntry[] | undefined;
  const etc = new CuratedEtcCache(runDirBase);

  const backend: SandboxBackend = {
    name: "bwrap",
    isolated: true,

    async check(): Promise<Availability> {
      const { paths, missing } = findTools(TOOLS);
      if (paths.bwrap) {
        const version = versionOf(paths.bwrap);
        const match = /(\d+)\.(\d+)/.exec(version ?? "");
        const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
        if (major === 0 && minor < 8) {
          missing.push(
            `bubblewrap >= 0.8 is needed for --disable-userns (found ${version ?? "unknown"}): apt-get install bubblewrap from Debian 12 / Ubuntu 24.04 or newer`,
          );
        }
      }
      missing.push(...(await hostPrerequisites(pool, runDirBase, { userNamespaces: true })));
      if (missing.length === 0) missing.push(...(await trialRun(backend)));
      const weaknesses = NAMESPACE_WEAKNESSES.filter((w) => !w.includes("seccomp"));
      weaknesses.push(
        filterArch
          ? "shares the host kernel; the seccomp filter only denies ptrace-like and keyring calls: a kernel exploit escapes"
          : `no seccomp filter for ${process.arch}: code under test can ptrace the sandbox's pid 1 and forge /out`,
      );
      return { available: missing.length === 0, missing, weaknesses };
    },

    async run(spec: RunSpec): Promise<RunResult> {
      const checked = await checkSpec(spec);
      const { paths, missing } = findTools(TOOLS);
      if (missing.length) throw new SandboxError(`bwrap backend unavailable: ${missing.join("; ")}`, false);
      layout ??= hostRootLayout();
      const rootLayout = checked.root ? hostRootLayout(checked.root) : layout;
      return withStagedRun(
        checked,
        { pool, chown: paths.chown, mount: paths.mount, runDirBase, seccompFilter },
        async (staged) => {
          const curated = await etc.get(staged.uid, checked.root, checked.network);
          const args = [
            ...reaperArgs(paths),
            paths.bash,
            ...staged.stageArgs,
            paths.setpriv,
            `--reuid=${staged.uid}`,
            `--regid=${staged.uid}`,
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            paths.bwrap,
            ...bwrapArgs(checked, staged, curated, rootLayout, seccompFilter !== undefined),
            "--",
            ...checked.argv,
          ];
          const run = await supervise({
            file: paths.setpriv,
            args,
            env: {},
            cwd: "/",
            detached: false,
            timeoutMs: checked.timeoutMs,
            stdin: checked.stdin,
            stdinWaitMs: checked.stdinWaitMs,
            onStdout: checked.onStdout,
            outputCapBytes: checked.outputCapBytes,
            terminate: terminateNamespace,
          });
          return toRunResult(run, outcomeFromBwrapStatus(run.status), staged.replacedPaths);
        },
      );
    },
  };
  return backend;
}

/** bwrap's options for one run (everything between `bwrap` and `--`). */
export function bwrapArgs(
  spec: CheckedSpec,
  staged: Staged,
  etc: { dir: string; binds: HostBind[] },
  layout: RootEntry[],
  seccomp = false,
): string[] {
  const args = [
    // The filter the staging script opened on fd 4 (seccomp.ts: no ptrace of pid 1, no keyrings).
    ...(seccomp ? ["--seccomp", "4"] : []),
    "--unshare-all",
    ...(spec.network ? ["--share-net"] : []),
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--json-status-fd",
    "3",
    "--hostname",
    SANDBOX_HOSTNAME,
    "--clearenv",
  ];
  for (const [name, value] of Object.entries(spec.env)) args.push("--setenv", name, value);
  // The system part of the root: the host's, or the run's own root filesystem (staged by root).
  const system = staged.root ?? "";
  args.push("--ro-bind", `${system}/usr`, "/usr");
  for (const entry of layout) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, `/${entry.name}`);
    else args.push("--ro-bind", `${system}/${entry.name}`, `/${entry.name}`);
  }
  args.push("--ro-bind", etc.dir, "/etc");
  for (const bind of etc.binds)
    args.push(
      "--ro-bind",
      staged.root ? rootPath(bind.source, spec.root!, staged.root) : bind.source,
      bind.target,
    );
  args.push("--size", String(spec.limits.tmpBytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev");
  args.push("--bind", staged.workspace, WORKSPACE);
  if (staged.outputDir) args.push("--bind", staged.outputDir, OUT);
  for (const [i, mount] of spec.readOnly.entries()) args.push("--ro-bind", staged.readOnly[i]!, mount.target);
  args.push("--chdir", WORKSPACE);
  return args;
}

/** `path` under the run's root filesystem, as the staged copy of that root shows it. */
function rootPath(path: string, root: string, staged: string): string {
  return path.startsWith(`${root}/`) ? `${staged}${path.slice(root.length)}` : path;
}
