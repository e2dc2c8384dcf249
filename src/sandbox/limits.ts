import { ConfigError } from "../errors.ts";
import type { ResourceLimits, RunSpec } from "./types.ts";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

/**
 * Limits applied when a RunSpec does not set them. Without cgroups (see docs/security.md §4.1) these
 * are rlimits, which count per process (AS, CPU, FSIZE) or per uid (NPROC); the wall timeout and the
 * output cap are what really bound a run.
 */
export const defaultLimits: Readonly<Required<ResourceLimits>> = Object.freeze({
  // Threads count too. 256 fits pytest with xdist workers and subprocess-heavy suites; a fork bomb
  // hits EAGAIN long before the host's pid_max, so the service and other runs still fork.
  processes: 256,
  // RLIMIT_AS is virtual memory: Python and Node reserve far more than they touch, so 4 GiB lets real
  // test suites start while one runaway allocation fails fast with MemoryError/ENOMEM. It is per process:
  // a run can use at most processes × this, hence oom_score_adj=1000 on every sandboxed process.
  // (Written as 4 * 2 ** 30 on purpose: `4 << 30` is 0 in JavaScript and gives --as=0, i.e. SIGSEGV.)
  memoryBytes: 4 * GiB,
  // Bigger than any legitimate test artifact (JUnit reports, fixtures), small enough that one file
  // cannot fill the disk that holds the workspace.
  fileSizeBytes: 256 * MiB,
  // CPU seconds per process: only a backstop behind the wall timeout (a spinning process that
  // somehow outlived the kill still dies); generous so that long legitimate suites never hit it.
  cpuSeconds: 600,
  // Enough for test runners that open many files and sockets; stops fd-exhaustion games early.
  openFiles: 4096,
  // The private /tmp is RAM-backed tmpfs: 512 MiB holds pytest's tmp_path trees and pyc caches but
  // cannot eat the host's memory.
  tmpBytes: 512 * MiB,
});

/** stdout+stderr kept per run: test logs beyond 1 MiB are noise, and capping keeps the service's RSS flat. */
export const defaultOutputCapBytes = MiB;

/** The spec's limits over the defaults, each checked to be a positive integer (rlimits are integers). */
export function resolveLimits(limits: RunSpec["limits"]): Required<ResourceLimits> {
  const merged: Required<ResourceLimits> = { ...defaultLimits };
  for (const [key, value] of Object.entries(limits ?? {}) as [keyof ResourceLimits, unknown][]) {
    if (value === undefined) continue;
    if (!(key in defaultLimits)) throw new ConfigError(`unknown sandbox limit "${key}"`);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigError(`sandbox limit ${key} must be a positive integer, got ${String(value)}`);
    }
    merged[key] = value;
  }
  return merged;
}

/** `prlimit` options for the limits; hard and soft are equal so sandboxed code cannot raise them. */
export function prlimitArgs(limits: Required<ResourceLimits>): string[] {
  return [
    `--nproc=${limits.processes}`,
    `--as=${limits.memoryBytes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    `--cpu=${limits.cpuSeconds}`,
  ];
}

/**
 * The same limits as arguments of bash's `ulimit` builtin, which the staging script (staged-run.ts) runs
 * instead of a prlimit process: -u processes, -v address space and -f file size in KiB (rounded down),
 * -n open files, -t CPU seconds. Without -H or -S, ulimit sets the soft and the hard limit.
 */
export function ulimitValues(limits: Required<ResourceLimits>): string[] {
  const kib = (bytes: number) => String(Math.max(1, Math.floor(bytes / 1024)));
  return [
    String(limits.processes),
    kib(limits.memoryBytes),
    kib(limits.fileSizeBytes),
    String(limits.openFiles),
    String(limits.cpuSeconds),
  ];
}

/** The output cap of a spec, checked. */
export function resolveOutputCap(spec: RunSpec): number {
  const cap = spec.outputCapBytes ?? defaultOutputCapBytes;
  if (!Number.isSafeInteger(cap) || cap <= 0) {
    throw new ConfigError(`outputCapBytes must be a positive integer, got ${String(cap)}`);
  }
  return cap;
}
