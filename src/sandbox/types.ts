/**
 * The seam between gagar and whatever isolates untrusted code. Every backend passes the same
 * contract suite (`contract.test-suite.ts`). Inside the sandbox the workspace is at `/workspace`.
 */

export interface ResourceLimits {
  /** Max processes/threads for the run's uid (RLIMIT_NPROC). */
  processes: number;
  /** Address space per process, bytes (RLIMIT_AS). */
  memoryBytes: number;
  /** Largest file a process may write, bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** CPU seconds per process (RLIMIT_CPU), a backstop behind the wall timeout. */
  cpuSeconds: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Size of the private RAM-backed /tmp, bytes (optional so that older callers still type-check). */
  tmpBytes?: number;
}

export interface Mount {
  /** Host path. */
  source: string;
  /** Absolute path inside the sandbox. */
  target: string;
}

export interface RunSpec {
  argv: string[];
  /** Host directory mounted read-write at /workspace; also the working directory. */
  workspace: string;
  /** Read-only binds laid over the sandbox after the workspace (hidden tests, toolchains). */
  readOnly?: Mount[];
  /** Host directory mounted read-write at `/out` for reports, when given. */
  outputDir?: string;
  /**
   * Added to (and overriding) the base environment (`sandboxBaseEnv` in env.ts: PATH, HOME, TMPDIR,
   * Python and locale settings); nothing is inherited from the host.
   */
  env?: Record<string, string>;
  timeoutMs: number;
  /**
   * The program's stdin (otherwise /dev/null). A promise starts the sandbox ahead of time: setup runs
   * at once, the program blocks reading stdin, and `timeoutMs` (and `durationMs`) count from the moment
   * the input is delivered. A rejected promise cancels the run.
   */
  stdin?: string | Promise<string>;
  /** How long a run may wait for a pending `stdin` before it is killed (default 10 minutes). */
  stdinWaitMs?: number;
  /**
   * Called once the run's uid is known, before anything looks into the workspace: fills it and hands it
   * (and `outputDir`) over to `uid`. Returning true spares the backend its `chown -R` of both (whose
   * cost grows with the workspace); false leaves that to the backend.
   */
  handOver?: (uid: number) => Promise<boolean>;
  /** Called with each chunk of stdout as it arrives (e.g. to see that a program waits for its stdin). */
  onStdout?: (chunk: Buffer) => void;
  /**
   * A host directory holding a whole root filesystem (usr/, etc/, and bin/, lib/… as directories or
   * /usr-merge symlinks), used read-only instead of the host's /usr and /etc as the sandbox's root.
   * The curated /etc is then written from this root's /etc (its linker cache, alternatives, CA
   * certificates), never the host's.
   */
  root?: string;
  /**
   * Keep the host's network (and its DNS configuration). Only for trusted commands, never candidate
   * code: a task's `setup` environment installs dependencies from package registries this way.
   */
  network?: boolean;
  /** stdout+stderr bytes kept; the run is killed once it prints more. */
  outputCapBytes?: number;
  limits?: Partial<ResourceLimits>;
}

export interface RunResult {
  /** Exit code, or null when killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  outputCapped: boolean;
  /** Killed because its pending `stdin` was rejected (never the program's doing). */
  cancelled?: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /**
   * Workspace or output paths that stood where a `readOnly` bind had to go (a symlink, or a file where
   * a directory was needed, or the reverse) and were removed before the run so that the bind wins.
   * Usually planted by a candidate: worth a finding.
   */
  replacedPaths?: string[];
}

export interface Availability {
  available: boolean;
  /** What the host lacks for this backend (e.g. "bwrap not found: apt-get install bubblewrap"). */
  missing: string[];
  /** Protections this backend does not give on this host. */
  weaknesses: string[];
}

export interface SandboxBackend {
  readonly name: string;
  /**
   * Whether a run is isolated in namespaces of its own: binds appear at their targets and every process
   * in it belongs to the run (so the runner may kill whatever is left). False only where candidate code
   * runs on the host as it is.
   */
  readonly isolated: boolean;
  check(): Promise<Availability>;
  /** Runs argv isolated; every process it started is dead when the promise settles. */
  run(spec: RunSpec): Promise<RunResult>;
}
