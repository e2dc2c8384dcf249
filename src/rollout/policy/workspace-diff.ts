import type { SandboxBackend } from "../../sandbox/types.ts";
import type { Baseline } from "./baseline.ts";

export interface DiffContext {
  sandbox: SandboxBackend;
  /** Host directory of the rollout's workspace. */
  workspace: string;
  baseline: Baseline;
  timeoutMs: number;
  maxPatchBytes: number;
}

/** The final patch, or an empty one with the reason when the workspace could not be diffed. */
export interface WorkspaceDiff {
  patch: string;
  error?: string;
}

/**
 * Git runs against the baseline repository mounted read-only, with the index and any new objects
 * in the run's private temporary directory, so the diff is "workspace versus pristine" whatever the agent did
 * to the workspace's own `.git` (committed, reset, rewrote or deleted it). No hooks, no fsmonitor,
 * no system or global config; the baseline's config is gagar's own.
 */
const DIFF_SCRIPT = [
  "set -e",
  'export GIT_INDEX_FILE="$TMPDIR/gagar-git/index" GIT_OBJECT_DIRECTORY="$TMPDIR/gagar-git/objects"',
  'mkdir -p "$GIT_OBJECT_DIRECTORY"',
  'g() { git -c safe.directory="*" -c core.hooksPath=/dev/null -c core.fsmonitor= "$@"; }',
  "g add -A",
  'g diff --cached --binary --no-color --no-ext-diff "$1"',
].join("\n");

const BASELINE_GIT = "/gagar/baseline.git";

/**
 * The workspace's diff against the baseline commit, computed INSIDE the sandbox: the workspace
 * holds the agent's files (planted hooks, `core.fsmonitor` in a `.git/config`, symlinks), and git
 * run on it by root on the host is code execution as root (docs/security.md §0.4).
 *
 * A diff that fails or outgrows `maxPatchBytes` is the agent's doing (an unreadable file it made, a
 * huge file), so it becomes an empty patch with the reason, which verification scores 0, rather
 * than an infrastructure error that would drop the group. Sandbox failures still throw.
 */
export async function diffWorkspace(ctx: DiffContext): Promise<WorkspaceDiff> {
  const result = await ctx.sandbox.run({
    argv: ["/bin/bash", "-c", DIFF_SCRIPT, "gagar-diff", ctx.baseline.commit],
    workspace: ctx.workspace,
    readOnly: [{ source: ctx.baseline.gitDir, target: BASELINE_GIT }],
    env: {
      GIT_DIR: BASELINE_GIT,
      GIT_WORK_TREE: "/workspace",
      GIT_ALTERNATE_OBJECT_DIRECTORIES: `${BASELINE_GIT}/objects`,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
    timeoutMs: ctx.timeoutMs,
    // stderr shares the cap; leave it room for git's warnings.
    outputCapBytes: ctx.maxPatchBytes + 64 * 1024,
  });
  if (result.timedOut) return { patch: "", error: `computing the diff timed out after ${ctx.timeoutMs} ms` };
  if (result.outputCapped || Buffer.byteLength(result.stdout) > ctx.maxPatchBytes) {
    return { patch: "", error: `the diff is larger than ${ctx.maxPatchBytes} bytes` };
  }
  if (result.exitCode !== 0) {
    return {
      patch: "",
      error: `git failed on the workspace (${result.exitCode ?? result.signal}): ${result.stderr.trim().slice(-2000)}`,
    };
  }
  return { patch: result.stdout };
}
