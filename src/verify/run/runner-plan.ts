import { randomBytes } from "node:crypto";
import { SandboxError } from "../../errors.ts";

/**
 * What the in-sandbox runner (sandbox-runner.py) is told, in the forms it reads without importing json
 * (its startup is paid per candidate):
 *
 * - the **plan**, a file bound into the sandbox when it starts (possibly before the candidate is known):
 *   NUL-separated tokens `gagar-plan-3 · killOthers (0|1) · reportCapBytes · timeoutMs · graceMs ·
 *   n applyArgv… ·
 *   n runs × (label · reportFd · guardFd · n argv…)` (guardFd 0: the run has no guard channel;
 *   timeoutMs 0: no deadline of the runner's own);
 * - the **request**, written to the runner's stdin once the candidate is known: `gagar-go-1 · token ·
 *   n bytecodeDirs… · hasPatch (0|1) ·` then the patch itself as the rest of the stream (so it may hold
 *   any byte). An empty stdin tells a runner started ahead that it is not needed.
 */
export interface RunnerPlan {
  killOthers: boolean;
  reportCapBytes: number;
  /**
   * The task's timeout, counted from the request: the runner then interrupts the test command and keeps
   * what it reported so far (status `timedOut`), before the sandbox's own wall timeout (which has a
   * margin on top) kills everything and nothing is left to read.
   */
  timeoutMs: number;
  /** How long an interrupted test command gets to write its report before it is killed. */
  graceMs: number;
  applyArgv: string[];
  runs: { label: string; reportFd: number; guardFd: number; argv: string[] }[];
}

export interface RunnerRequest {
  /** The per-run secret the runner echoes in status.json. */
  token: string;
  /** Directories the patch writes into, where bytecode is removed after applying it. */
  bytecodeDirs: string[];
  /** The patch to apply; empty for none. */
  patch: string;
}

const PLAN_MAGIC = "gagar-plan-3";

/** How long a test command interrupted at the task's timeout gets to write its report (on a loaded host). */
export const INTERRUPT_GRACE_MS = 3000;
const REQUEST_MAGIC = "gagar-go-1";

export function encodeRunnerPlan(plan: RunnerPlan): string {
  const tokens: string[] = [
    PLAN_MAGIC,
    plan.killOthers ? "1" : "0",
    String(plan.reportCapBytes),
    String(Math.round(plan.timeoutMs)),
    String(Math.round(plan.graceMs)),
  ];
  const list = (items: string[]) => tokens.push(String(items.length), ...items);
  list(plan.applyArgv);
  tokens.push(String(plan.runs.length));
  for (const run of plan.runs) {
    tokens.push(run.label, String(run.reportFd), String(run.guardFd));
    list(run.argv);
  }
  return joinTokens(tokens, "runner plan");
}

export function encodeRunnerRequest(request: RunnerRequest): string {
  if (!/^[\x21-\x7e]+$/.test(request.token))
    throw new SandboxError("runner token must be printable ASCII without spaces", false);
  const tokens = [REQUEST_MAGIC, request.token, String(request.bytecodeDirs.length), ...request.bytecodeDirs];
  tokens.push(request.patch ? "1" : "0");
  return `${joinTokens(tokens, "runner request")}\0${request.patch}`;
}

function joinTokens(tokens: string[], what: string): string {
  const bad = tokens.find((t) => t.includes("\0"));
  if (bad !== undefined)
    throw new SandboxError(`${what} token contains a NUL byte: ${JSON.stringify(bad)}`, false);
  return tokens.join("\0");
}

/** The request for one candidate: a fresh secret token, the gate's rendering, where bytecode could appear. */
export function runnerRequest(gate: {
  patch: string;
  files: readonly { newPath: string | null }[];
}): RunnerRequest {
  return { token: randomBytes(16).toString("hex"), patch: gate.patch, bytecodeDirs: dirsOf(gate.files) };
}

/** Directories the patch writes files into ("" for the root), where bytecode could have appeared. */
function dirsOf(files: readonly { newPath: string | null }[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    if (f.newPath === null) continue;
    const slash = f.newPath.lastIndexOf("/");
    dirs.add(slash < 0 ? "" : f.newPath.slice(0, slash));
  }
  return [...dirs];
}
