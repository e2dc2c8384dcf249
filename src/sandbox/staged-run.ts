import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bindEntry, type FstabEntry, formatFstab } from "./fstab.ts";
import { ulimitValues } from "./limits.ts";
import { prepareMountPoints } from "./mount-points.ts";
import { makeRunDir, removeRunDir } from "./run-dir.ts";
import type { CheckedSpec } from "./run-spec.ts";
import type { UidPool } from "./uid-pool.ts";

/**
 * Bash: closes every descriptor above 3 (fd 3 is the status pipe). Node's spawn passes on whatever the
 * verifier inherited without close-on-exec (a CI runner's pipes, a terminal multiplexer's sockets), and
 * nothing else in the chains closes them. No redirection on the loop: bash would park stderr on a high
 * fd for the duration, which the loop would then close.
 */
export const CLOSE_INHERITED_FDS =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
  'for fd in /proc/self/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 3 ]; then eval "exec $fd>&-"; fi; done';

/**
 * The staging script: runs (in bash) as root at the head of a namespace backend's chain, in the private
 * mount namespace that `unshare` just made, and then execs the rest of the chain. Arguments:
 * `chown owner count path… mount fstab seccomp nproc as-KiB fsize-KiB nofile cpu-s chain…`. It
 * 1. gives the workspace and output directory to the run's uid. GNU `chown -R` never follows symlinks
 *    (-P, its default with -R; -h changes the links themselves): the tree may hold links a candidate
 *    planted in an earlier run (`evil -> /etc/shadow`);
 * 2. performs the mount table (one `mount -a -T`, not one process per mount);
 * 3. runs the backend's extra root-side `steps` (fixed text built from checked system paths only);
 * 4. sets the run's rlimits (limits.ts, `ulimitValues`) and oom_score_adj=1000 with builtins: a prlimit
 *    and a choom process would each be one more exec per run. The host's /proc is still mounted, and its
 *    /proc/self is this shell's host pid (a choom inside the pid namespace would write pid 1's entry);
 *    every process of the run inherits both;
 * 5. closes inherited descriptors, opens the seccomp filter file (when not "") on fd 4 for bwrap's
 *    `--seccomp 4`, and execs the chain with an empty environment (`exec -c`: a shell exports PWD and
 *    friends, and bwrap's /proc/1/environ is readable inside the sandbox).
 * Paths arrive as arguments, never inside the script text. Exit 125 means the staging itself failed.
 */
export function stageScript(steps: string[] = []): string {
  return [
    "chown=$1 owner=$2 count=$3; shift 3",
    // One chown process for every path: each extra process is one more exec per run.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
    'if [ "$count" -gt 0 ]; then "$chown" -R -P -h "$owner" -- "${@:1:count}" || exit 125; shift "$count"; fi',
    '"$1" -a -T "$2" || exit 125',
    ...steps.map((step) => `${step} || exit 125`),
    "seccomp=$3; shift 3",
    'ulimit -u "$1" -v "$2" -f "$3" -n "$4" -c 0 -t "$5" || exit 125; shift 5',
    "echo 1000 > /proc/self/oom_score_adj || exit 125",
    CLOSE_INHERITED_FDS,
    'if [ -n "$seccomp" ]; then exec 4<"$seccomp" || exit 125; fi',
    'exec -c "$@"',
  ].join("\n");
}

/**
 * The head of a namespace backend's chain, up to the staging script:
 * - `setpriv --pdeathsig KILL`: if the verifier dies, `unshare` dies with it, and `--kill-child`
 *   takes the whole sandbox down (nothing outlives its supervisor or its timeout).
 * - `unshare --fork --pid --mount --propagation private` (as root): the staging mounts happen in a
 *   mount namespace the host never sees, and the chain runs as pid 1 of its own pid namespace with
 *   `unshare` as a parent that waits. bwrap's outer process exits as soon as the program does,
 *   without reaping its pid-1 helper; without this pid namespace that helper became a zombie of the
 *   host's init, which may reap it long after, holding the run's uid (and its RLIMIT_NPROC count).
 *   Inside, the kernel reaps it the moment the namespace's init exits.
 */
export function reaperArgs(paths: { unshare: string }, namespaces: string[] = []): string[] {
  return [
    "--pdeathsig",
    "KILL",
    "--",
    paths.unshare,
    "--fork",
    "--pid",
    "--kill-child",
    "--mount",
    "--propagation",
    "private",
    ...namespaces,
    "--",
  ];
}

/** Host paths of the staged sources: what the sandbox binds instead of the caller's real paths. */
export interface Staged {
  uid: number;
  runDir: string;
  workspace: string;
  outputDir: string | undefined;
  /** Staged path of each `readOnly` mount, in order. */
  readOnly: string[];
  /** Staged path of `spec.root` (read-only), when the run has one. */
  root: string | undefined;
  fstab: string;
  replacedPaths: string[];
  /** `bash` arguments that stage this run (see `stageScript`), to be followed by the chain. */
  stageArgs: string[];
}

/** What exists before the mount table is written: enough for a backend to add its own mounts. */
export type StagedPaths = Omit<Staged, "fstab" | "replacedPaths" | "stageArgs">;

export interface StageOptions {
  pool: UidPool;
  chown: string;
  mount: string;
  /** Extra root-side steps of the staging script. */
  steps?: string[];
  runDirBase: string;
  /** A seccomp filter (seccomp.ts) to hand to the chain on fd 4. */
  seccompFilter?: Buffer;
  /** Mounts performed after the source binds (the unshare backend builds its whole root here). */
  extraEntries?: (staged: StagedPaths) => Promise<FstabEntry[]>;
}

/**
 * Leases a uid and prepares the staging of every bind source onto a mount point inside a fresh 0711
 * run directory (the staging script then hands the workspace and output directory to the uid). `body` runs the sandbox; afterwards the lease is
 * released only once no process of the uid remains, and the run directory is removed.
 */
export async function withStagedRun<T>(
  spec: CheckedSpec,
  options: StageOptions,
  body: (staged: Staged) => Promise<T>,
): Promise<T> {
  const lease = await options.pool.acquire();
  let runDir: string | undefined;
  try {
    const handedOver = (await spec.handOver?.(lease.uid)) ?? false;
    const replacedPaths = await prepareMountPoints(spec, handedOver ? lease.uid : undefined);
    runDir = await makeRunDir(options.runDirBase);
    const entries: FstabEntry[] = [];
    // Synchronous on purpose, like the rest of the staging: a dozen tiny metadata calls in a fresh
    // directory take well under a millisecond inline, and several through the libuv thread pool.
    const stage = (source: string, name: string, kind: "file" | "dir", root = false) => {
      const point = join(runDir!, name);
      if (kind === "dir") mkdirSync(point, { mode: 0o755 });
      else closeSync(openSync(point, "wx", 0o644));
      entries.push(bindEntry(source, point, root, [], root));
      return point;
    };
    const workspace = stage(spec.workspace, "ws", "dir");
    const outputDir = spec.outputDir ? stage(spec.outputDir, "out", "dir") : undefined;
    const readOnly: string[] = [];
    for (const [i, mount] of spec.readOnly.entries())
      readOnly.push(stage(mount.source, `ro-${i}`, mount.kind));
    // A root filesystem may live where the run's uid cannot reach it (a cache under /root): staged too,
    // read-only, with whatever is mounted inside it.
    const root = spec.root ? stage(spec.root, "root", "dir", true) : undefined;
    const partial = { uid: lease.uid, runDir, workspace, outputDir, readOnly, root };
    entries.push(...((await options.extraEntries?.(partial)) ?? []));
    const fstab = join(runDir, "fstab");
    writeFileSync(fstab, formatFstab(entries), { mode: 0o600 });
    const seccomp = options.seccompFilter ? join(runDir, "seccomp.bpf") : "";
    if (options.seccompFilter) writeFileSync(seccomp, options.seccompFilter, { mode: 0o600 });
    const owned = handedOver ? [] : spec.outputDir ? [spec.workspace, spec.outputDir] : [spec.workspace];
    const stageArgs = [
      // bash sources ~/.bashrc even for -c when stdin is a socket (its rshd check), and a run's stdin
      // may be one (RunSpec.stdin): root's shell startup files have no place in the chain.
      "--norc",
      "--noprofile",
      "-c",
      stageScript(options.steps),
      "gagar-stage",
      options.chown,
      `${lease.uid}:${lease.uid}`,
      String(owned.length),
      ...owned,
      options.mount,
      fstab,
      seccomp,
      ...ulimitValues(spec.limits),
    ];
    return await body({ ...partial, fstab, replacedPaths, stageArgs });
  } finally {
    try {
      await lease.release();
    } finally {
      if (runDir) await removeRunDir(runDir);
    }
  }
}
