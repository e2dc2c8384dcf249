import { lstat, stat } from "node:fs/promises";
import { isAbsolute, join, posix, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { buildSandboxEnv } from "./env.ts";
import { resolveLimits, resolveOutputCap } from "./limits.ts";
import type { ResourceLimits, RunSpec } from "./types.ts";

export const WORKSPACE = "/workspace";
export const OUT = "/out";
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Paths a read-only bind may not land on or under: they are the sandbox's own skeleton (binding over
 * /usr would need a mount point inside the host's /usr; /proc, /dev and /tmp are per-run mounts).
 */
const RESERVED = [
  "/usr",
  "/etc",
  "/proc",
  "/dev",
  "/tmp",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

export interface CheckedMount {
  source: string;
  target: string;
  kind: "file" | "dir";
}

/** A RunSpec after validation: absolute host paths, merged env and limits. */
export interface CheckedSpec {
  argv: string[];
  workspace: string;
  outputDir: string | undefined;
  readOnly: CheckedMount[];
  env: Record<string, string>;
  timeoutMs: number;
  /** Pending or immediate stdin; undefined means /dev/null. */
  stdin: Promise<string> | undefined;
  stdinWaitMs: number;
  onStdout: ((chunk: Buffer) => void) | undefined;
  handOver: ((uid: number) => Promise<boolean>) | undefined;
  outputCapBytes: number;
  limits: Required<ResourceLimits>;
  /** Absolute host path of the root filesystem to use instead of the host's, if any. */
  root: string | undefined;
  network: boolean;
}

/** True when `path` is `root` or lies below it (sandbox paths, POSIX). */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/** How long a run started ahead waits for its stdin by default (RunSpec.stdinWaitMs). */
export const DEFAULT_STDIN_WAIT_MS = 10 * 60_000;

/**
 * Validates a spec before anything runs. Everything here is the caller's fault (a bug in the verifier
 * or a bad config), never the candidate's, so failures are ConfigErrors.
 */
export async function checkSpec(spec: RunSpec): Promise<CheckedSpec> {
  if (!Array.isArray(spec.argv) || spec.argv.length === 0)
    throw new ConfigError("RunSpec.argv must not be empty");
  for (const arg of spec.argv) {
    if (typeof arg !== "string" || arg.includes("\0")) {
      throw new ConfigError("RunSpec.argv must be strings without NUL bytes");
    }
  }
  // setTimeout fires at once for delays above 2^31-1 ms, which would kill every run immediately.
  if (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0 || spec.timeoutMs > MAX_TIMEOUT_MS) {
    throw new ConfigError(
      `RunSpec.timeoutMs must be in (0, ${MAX_TIMEOUT_MS}], got ${String(spec.timeoutMs)}`,
    );
  }
  const workspace = await existingDir(spec.workspace, "RunSpec.workspace");
  const outputDir =
    spec.outputDir === undefined ? undefined : await existingDir(spec.outputDir, "RunSpec.outputDir");
  const readOnly: CheckedMount[] = [];
  for (const mount of spec.readOnly ?? [])
    readOnly.push(await checkMount(mount.source, mount.target, outputDir));
  return {
    argv: [...spec.argv],
    workspace,
    outputDir,
    readOnly,
    env: buildSandboxEnv(spec.env),
    timeoutMs: spec.timeoutMs,
    stdin: spec.stdin === undefined ? undefined : Promise.resolve(spec.stdin),
    stdinWaitMs: checkStdinWait(spec.stdinWaitMs),
    onStdout: spec.onStdout,
    handOver: spec.handOver,
    outputCapBytes: resolveOutputCap(spec),
    limits: resolveLimits(spec.limits),
    root: spec.root === undefined ? undefined : await existingRoot(spec.root),
    network: spec.network === true,
  };
}

function checkStdinWait(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_STDIN_WAIT_MS;
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS)
    throw new ConfigError(`RunSpec.stdinWaitMs must be in (0, ${MAX_TIMEOUT_MS}], got ${String(ms)}`);
  return ms;
}

/** A root filesystem must at least hold usr/ and etc/ (directories, not links out of it). */
async function existingRoot(path: string): Promise<string> {
  const root = await existingDir(path, "RunSpec.root");
  for (const name of ["usr", "etc"]) {
    const info = await lstat(join(root, name)).catch(() => undefined);
    if (!info?.isDirectory()) throw new ConfigError(`RunSpec.root ${root} has no ${name}/ directory`);
  }
  return root;
}

async function existingDir(path: string, what: string): Promise<string> {
  if (typeof path !== "string" || path === "") throw new ConfigError(`${what} must be a host directory path`);
  const absolute = resolve(path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`${what} ${absolute} is not an existing directory`);
  return absolute;
}

async function checkMount(
  source: string,
  target: string,
  outputDir: string | undefined,
): Promise<CheckedMount> {
  if (
    typeof target !== "string" ||
    !isAbsolute(target) ||
    posix.normalize(target) !== target ||
    target === "/"
  ) {
    throw new ConfigError(`readOnly target ${JSON.stringify(target)} must be an absolute, normalized path`);
  }
  if (target.endsWith("/")) throw new ConfigError(`readOnly target ${target} must not end with "/"`);
  if (target === WORKSPACE || target === OUT) {
    throw new ConfigError(`readOnly target ${target} would hide the whole ${target}; bind paths inside it`);
  }
  const reserved = RESERVED.find((root) => isWithin(target, root));
  if (reserved)
    throw new ConfigError(`readOnly target ${target} is inside ${reserved}, which the sandbox provides`);
  if (isWithin(target, OUT) && outputDir === undefined) {
    throw new ConfigError(`readOnly target ${target} is under ${OUT} but the spec has no outputDir`);
  }
  const absolute = resolve(source);
  const info = await stat(absolute).catch(() => undefined);
  if (!info || !(info.isFile() || info.isDirectory())) {
    throw new ConfigError(`readOnly source ${absolute} is not an existing file or directory`);
  }
  return { source: absolute, target, kind: info.isDirectory() ? "dir" : "file" };
}
