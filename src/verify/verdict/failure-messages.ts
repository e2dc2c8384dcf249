import { WORKSPACE } from "../../sandbox/run-spec.ts";
import { OUTPUT_TAIL_BYTES, redactLine, type Secret } from "../run/output-tail.ts";
import type { TestPlan } from "../runners/types.ts";
import type { JunitCase } from "./junit-report.ts";

/**
 * The diagnostics a verdict keeps from its reports: what the failing and erroring test cases said.
 * Only pytest prints its failures to the output the tail keeps (output-tail.ts); node:test, mocha, jest
 * and vitest write them to the report channel alone, so without this a verdict shows nothing but the
 * runner's banner. The task's own ids come first (in the task's order), then the other cases that
 * failed or errored: a failing `before` hook or a test file that did not load is what explains the
 * ids it left missing.
 *
 * Canaries are left out (their messages are the run's secrets and say nothing about the candidate).
 * Every line that quotes a hidden test is replaced the way the output tail does it (docs/security.md
 * E5), control characters are dropped (the text is printed to the operator's terminal), and each
 * message is cut to its first lines, without stack frames from outside the project, so that several failures
 * fit in the cap.
 */

export const FAILURE_MESSAGES_BYTES = OUTPUT_TAIL_BYTES;
const LINES_PER_CASE = 12;

export interface FailureInput {
  plan: TestPlan;
  /** The parsed report of each planned run, in plan order (fewer when grading stopped early). */
  cases: readonly (readonly JunitCase[])[];
  /** The task's failToPass and passToPass ids, in that order. */
  ids: readonly string[];
  /** Lines of the hidden tests (output-tail.ts `secretLines`). */
  secrets: readonly Secret[];
  cap?: number;
}

interface Failure {
  label: string;
  status: string;
  message: string;
  /** Where the task's ids come first. */
  order: number;
}

/** The failing cases' messages as text (empty when nothing failed), at most `cap` bytes. */
export function failureMessages(input: FailureInput): string {
  const failures = collect(input);
  const cap = input.cap ?? FAILURE_MESSAGES_BYTES;
  const out: string[] = [];
  let bytes = 0;
  for (const [i, f] of failures.entries()) {
    const block = render(f, input.secrets);
    const sep = out.length ? 1 : 0;
    const after = failures.length - i - 1;
    if (bytes + sep + Buffer.byteLength(block) + (after ? moreBytes(after) : 0) <= cap) {
      out.push(block);
      bytes += sep + Buffer.byteLength(block);
      continue;
    }
    // It does not fit whole: its first lines, then how many were left out.
    const part = fitLines(block, cap - bytes - sep - moreBytes(after + 1));
    if (part) out.push(part);
    const left = part ? after : after + 1;
    if (left) out.push(moreLine(left));
    break;
  }
  return out.join("\n");
}

function collect({ plan, cases, ids }: FailureInput): Failure[] {
  const taskIdAt = new Map<string, number>();
  for (const [order, id] of ids.entries()) {
    const where = plan.locate(id);
    const slot = where && `${where.run}\u0000${where.key}`;
    if (slot && !taskIdAt.has(slot)) taskIdAt.set(slot, order);
  }
  const byLabel = new Map<string, Failure>();
  let reported = 0;
  for (const [i, run] of plan.runs.entries()) {
    const canaries = new Set(run.canaries.map((c) => c.key));
    for (const c of cases[i] ?? []) {
      if (c.status !== "failed" && c.status !== "error") continue;
      const keys = run.keysOf(c);
      if (keys.some((k) => canaries.has(k))) continue;
      const order = keys.map((k) => taskIdAt.get(`${i}\u0000${k}`)).find((o) => o !== undefined);
      const label = order === undefined ? run.idOf(c) : ids[order]!;
      if (byLabel.has(label)) continue;
      byLabel.set(label, {
        label,
        status: c.status,
        message: c.message,
        order: order ?? ids.length + reported++,
      });
    }
  }
  return [...byLabel.values()].sort((a, b) => a.order - b.order);
}

function render(f: Failure, secrets: readonly Secret[]): string {
  const lines = clean(f.message)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() && !isForeignFrame(l));
  const shown = lines.slice(0, LINES_PER_CASE).map((l) => `  ${redactLine(l, secrets)}`);
  if (lines.length > LINES_PER_CASE) shown.push(`  [${lines.length - LINES_PER_CASE} more lines]`);
  return [redactLine(`${f.label} (${f.status})`, secrets), ...shown].join("\n");
}

/** A JavaScript stack frame and its file: `at f (file:1:2)` or `at file:1:2`. */
const FRAME = /^\s*at (?:.*? \()?(\S+?):\d+:\d+\)?(?: \{)?$/;

/**
 * Stack frames outside the project (the runtime's, installed packages', a test framework installed
 * beside the toolchain): they fill the lines a message gets and never say why a test failed.
 */
function isForeignFrame(line: string): boolean {
  const file = FRAME.exec(line)?.[1];
  if (file === undefined) return false;
  if (file.startsWith("node:") || file.includes("/node_modules/")) return true;
  return file.startsWith("/") && !file.startsWith(`${WORKSPACE}/`);
}

/** Without terminal escapes and other control characters (tabs and newlines stay). */
function clean(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is removed
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

/** The leading whole lines of `block` within `room` bytes; "" when not even its first line fits. */
function fitLines(block: string, room: number): string {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of block.split("\n")) {
    bytes += Buffer.byteLength(line) + (kept.length ? 1 : 0);
    if (bytes > room) break;
    kept.push(line);
  }
  return kept.join("\n");
}

function moreLine(n: number): string {
  return `[${n} more failing test${n === 1 ? "" : "s"} left out]`;
}

/** The bytes of the "left out" line and its newline, for up to `n` left out. */
function moreBytes(n: number): number {
  return Buffer.byteLength(moreLine(n)) + 1;
}
