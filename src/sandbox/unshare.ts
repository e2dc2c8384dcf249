import { mkdir, open, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SandboxError } from "../errors.ts";
import { SANDBOX_HOSTNAME, writeCuratedEtc } from "./curated-etc.ts";
import { bindEntry, type FstabEntry } from "./fstab.ts";
import { hostPrerequisites, trialRun } from "./host-checks.ts";
import { findTool, findTools } from "./host-tools.ts";
import { toRunResult } from "./outcome.ts";
import { hostRootLayout, type RootEntry } from "./root-layout.ts";
import { type CheckedSpec, checkSpec, isWithin, OUT, WORKSPACE } from "./run-spec.ts";
import { reaperArgs, type StagedPaths, withStagedRun } from "./staged-run.ts";
import { outcomeFromStartMarker, START_SCRIPT } from "./start-marker.ts";
import { supervise, terminateNamespace } from "./supervise.ts";
import type { Availability, RunResult, RunSpec, SandboxBackend } from "./types.ts";
import { defaultUidRange, UidPool, type UidRange } from "./uid-pool.ts";
import { NAMESPACE_WEAKNESSES } from "./weaknesses.ts";

export interface UnshareOptions {
  /** Dedicated host uids, one per concurrent run (default 61000–61063, shared with bwrap). */
  uidRange?: UidRange;
  /** Where per-run staging directories go; must be traversable by other users (default /tmp). */
  runDirBase?: string;
}

const TOOLS = ["unshare", "setpriv", "mount", "chown", "chroot", "env", "sh", "bash"] as const;
const DEVICES = ["null", "zero", "full", "random", "urandom"];

const WEAKNESSES = [
  ...NAMESPACE_WEAKNESSES,
  "the mounts are set up by host root (inside fresh namespaces, before any candidate code runs); bwrap sets up unprivileged",
  "nested user namespaces are refused only because the sandbox is a chroot (kernel rule), not by a namespace limit as bwrap --disable-userns does",
];

/**
 * Fallback for hosts without bubblewrap, built from util-linux alone and as close to the bwrap recipe
 * as root allows: `unshare` gives new pid, mount, network, IPC and UTS namespaces; host root (inside
 * them) assembles a minimal read-only root from /usr, a curated /etc, a private size-capped /tmp, a new
 * /proc and a minimal /dev, and sets the rlimits; then chroot, and setpriv to the run's own uid
 * with no capabilities, no bounding set and no new privileges. The network namespace holds only `lo`.
 */
export function createUnshareBackend(options: UnshareOptions = {}): SandboxBackend {
  const pool = new UidPool(options.uidRange ?? defaultUidRange);
  const runDirBase = options.runDirBase ?? "/tmp";
  let layout: RootEntry[] | undefined;

  const backend: SandboxBackend = {
    name: "unshare",
    isolated: true,

    async check(): Promise<Availability> {
      const { missing } = findTools(TOOLS);
      missing.push(...(await hostPrerequisites(pool, runDirBase, { userNamespaces: false })));
      if (missing.length === 0) missing.push(...(await trialRun(backend)));
      const weaknesses = [...WEAKNESSES];
      if (!findTool("ip"))
        weaknesses.push("iproute2 missing: the loopback interface stays down (apt-get install iproute2)");
      return { available: missing.length === 0, missing, weaknesses };
    },

    async run(spec: RunSpec): Promise<RunResult> {
      const checked = await checkSpec(spec);
      const { paths, missing } = findTools(TOOLS);
      if (missing.length) throw new SandboxError(`unshare backend unavailable: ${missing.join("; ")}`, false);
      layout ??= hostRootLayout();
      const rootLayout = checked.root ? hostRootLayout(checked.root) : layout;
      const ip = findTool("ip");
      const steps = [`printf %s ${SANDBOX_HOSTNAME} > /proc/sys/kernel/hostname`];
      if (ip && /^[\w/.-]+$/.test(ip)) steps.push(`${ip} link set lo up`);
      const extraEntries = (staged: StagedPaths) => buildRoot(checked, staged, rootLayout);
      return withStagedRun(
        checked,
        { pool, chown: paths.chown, mount: paths.mount, steps, runDirBase, extraEntries },
        async (staged) => {
          const root = join(staged.runDir, "root");
          const envArgs = Object.entries(checked.env).map(([name, value]) => `${name}=${value}`);
          const args = [
            ...reaperArgs(paths, [...(checked.network ? [] : ["--net"]), "--ipc", "--uts"]),
            paths.bash,
            ...staged.stageArgs,
            paths.chroot,
            root,
            paths.setpriv,
            `--reuid=${staged.uid}`,
            `--regid=${staged.uid}`,
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            paths.env,
            "-i",
            "-C",
            WORKSPACE,
            "--",
            ...envArgs,
            "/bin/sh",
            "-c",
            START_SCRIPT,
            "gagar-init",
            ...checked.argv,
          ];
          const run = await supervise({
            file: paths.setpriv,
            args,
            env: {},
            cwd: "/",
            detached: true,
            timeoutMs: checked.timeoutMs,
            stdin: checked.stdin,
            stdinWaitMs: checked.stdinWaitMs,
            onStdout: checked.onStdout,
            outputCapBytes: checked.outputCapBytes,
            terminate: terminateNamespace,
          });
          const exit = { exitCode: run.exitCode, signal: run.signal };
          return toRunResult(run, outcomeFromStartMarker(run.status, exit), staged.replacedPaths);
        },
      );
    },
  };
  return backend;
}

/**
 * Creates the root skeleton in the run directory (mount points, /usr-merge symlinks, /dev entries) and
 * returns the mounts that turn it into the sandbox's root, in order; the last one makes it read-only.
 */
async function buildRoot(spec: CheckedSpec, staged: StagedPaths, layout: RootEntry[]): Promise<FstabEntry[]> {
  const root = join(staged.runDir, "root");
  const system = spec.root ?? "/";
  const etcBinds = await writeCuratedEtc(
    join(staged.runDir, "etc"),
    staged.uid,
    join(system, "etc"),
    spec.network,
  );
  const dirs = ["usr", "etc", "tmp", "proc", "dev", "dev/shm", "dev/pts", "workspace"];
  if (staged.outputDir) dirs.push("out");
  await mkdir(root, { mode: 0o755 });
  for (const dir of dirs) await mkdir(join(root, dir), { mode: 0o755 });
  for (const entry of layout) {
    if (entry.kind === "symlink") await symlink(entry.target, join(root, entry.name));
    else await mkdir(join(root, entry.name), { mode: 0o755 });
  }
  for (const device of DEVICES) await (await open(join(root, "dev", device), "wx", 0o666)).close();
  const links: [string, string][] = [
    ["pts/ptmx", "ptmx"],
    ["/proc/self/fd", "fd"],
    ["/proc/self/fd/0", "stdin"],
    ["/proc/self/fd/1", "stdout"],
    ["/proc/self/fd/2", "stderr"],
  ];
  for (const [target, name] of links) await symlink(target, join(root, "dev", name));
  for (const mount of spec.readOnly) {
    if (isWithin(mount.target, WORKSPACE) || isWithin(mount.target, OUT)) continue;
    const point = join(root, mount.target);
    await mkdir(dirname(point), { recursive: true, mode: 0o755 });
    if (mount.kind === "dir") await mkdir(point, { recursive: true, mode: 0o755 });
    else await (await open(point, "a", 0o644)).close();
  }

  const at = (path: string) => join(root, path);
  const entries: FstabEntry[] = [
    bindEntry(root, root, false),
    bindEntry(join(system, "usr"), at("usr"), true),
  ];
  for (const entry of layout) {
    if (entry.kind === "dir") entries.push(bindEntry(join(system, entry.name), at(entry.name), true));
  }
  entries.push(bindEntry(join(staged.runDir, "etc"), at("etc"), true));
  for (const bind of etcBinds) entries.push(bindEntry(bind.source, at(bind.target), true));
  const tmpfsOptions = [`size=${spec.limits.tmpBytes}`, "mode=1777", "nosuid", "nodev"];
  entries.push({ source: "tmpfs", target: at("tmp"), type: "tmpfs", options: tmpfsOptions });
  entries.push({ source: "proc", target: at("proc"), type: "proc", options: ["nosuid", "nodev", "noexec"] });
  for (const device of DEVICES)
    entries.push({ ...bindEntry(`/dev/${device}`, at(`dev/${device}`), false), options: ["bind", "nosuid"] });
  entries.push({ source: "tmpfs", target: at("dev/shm"), type: "tmpfs", options: tmpfsOptions });
  entries.push({
    source: "devpts",
    target: at("dev/pts"),
    type: "devpts",
    options: ["newinstance", "ptmxmode=0666", "mode=0620", "nosuid", "noexec"],
  });
  entries.push(bindEntry(staged.workspace, at("workspace"), false));
  if (staged.outputDir) entries.push(bindEntry(staged.outputDir, at("out"), false));
  for (const [i, mount] of spec.readOnly.entries())
    entries.push(bindEntry(staged.readOnly[i]!, at(mount.target), true));
  entries.push({
    source: root,
    target: root,
    type: "none",
    options: ["remount", "bind", "ro", "nosuid", "nodev"],
  });
  return entries;
}
