/**
 * The diagnostics a verdict keeps: the last lines of what its test run printed (the runner merges each
 * test command's stderr into its stdout and marks where each run starts), so that a user can see why a
 * candidate failed, or why a task's reference fails, without rerunning anything outside gagar.
 *
 * Test output quotes the hidden tests (tracebacks, assertion rewriting), and hidden-test text must never
 * reach anything the policy can read (docs/security.md E5). Every line that contains a line of a hidden test
 * file (stripped, at least `MIN_SECRET` characters) is replaced by a marker before the tail leaves the
 * verifier. What remains can still show values a test computed; the tail is meant for the operator,
 * and gagar never puts it into groups, prompts or rewards.
 */

export const OUTPUT_TAIL_BYTES = 4096;
const MIN_SECRET = 6;
const READY_LINE = "gagar-runner: waiting for the candidate\n";
export const REDACTED = "[line quoting a hidden test removed]";

/**
 * What a diagnostic must not show: a line of a hidden test (text found anywhere in a line), or a name
 * (a pattern: the verifier's canaries, runners/canary.ts).
 */
export type Secret = string | RegExp;

/** `line`, or the marker when it holds a secret (the one rule for every diagnostic a verdict keeps). */
export function redactLine(line: string, secrets: readonly Secret[]): string {
  return secrets.some((s) => (typeof s === "string" ? line.includes(s) : s.test(line))) ? REDACTED : line;
}

/** Lines of hidden test files worth redacting (stripped, long enough to be distinctive). */
export function secretLines(sources: readonly string[]): string[] {
  const lines = new Set<string>();
  for (const text of sources) {
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (line.length >= MIN_SECRET) lines.add(line);
    }
  }
  return [...lines];
}

/**
 * The last `cap` bytes (whole lines) of the run's output, with hidden-test lines redacted. A last line
 * longer than the cap alone (a minified stack, a dumped object) keeps its end, marked as cut, rather
 * than leaving the tail empty.
 */
export function outputTail(
  stdout: string,
  stderr: string,
  secrets: readonly Secret[],
  cap = OUTPUT_TAIL_BYTES,
): string {
  let text = stdout.startsWith(READY_LINE) ? stdout.slice(READY_LINE.length) : stdout;
  if (stderr.trim()) text += `\n[stderr]\n${stderr}`;
  const lines = text.replace(/\s+$/, "").split("\n");
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = redactLine(lines[i]!, secrets);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > cap) {
      if (kept.length === 0) kept.push(lastBytes(line, cap));
      break;
    }
    kept.push(line);
  }
  return kept.reverse().join("\n").replace(/^\n+/, "");
}

/**
 * The first and the last lines of the output, with what lies between left out, in at most `cap` bytes:
 * for a set-up command whose error comes first and a long usage text after it (npm's "not in sync …
 * Missing: chai@3.5.0 from lock file", then 90 lines of `npm ci` usage), where a tail alone would keep
 * only the usage. The head takes up to `headLines` lines and half the room; the tail takes the rest.
 */
export function outputExcerpt(
  stdout: string,
  stderr: string,
  secrets: readonly Secret[],
  cap = OUTPUT_TAIL_BYTES,
  headLines = 20,
): string {
  const whole = outputTail(stdout, stderr, secrets, Number.MAX_SAFE_INTEGER);
  if (Buffer.byteLength(whole) <= cap) return whole;
  const lines = whole.split("\n");
  const head: string[] = [];
  let bytes = 0;
  for (const line of lines.slice(0, headLines)) {
    if (bytes + Buffer.byteLength(line) + 1 > cap / 2) break;
    head.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  const marker = (n: number) => `[… ${n} lines left out …]`;
  const rest = lines.slice(head.length).join("\n");
  const tail = outputTail(rest, "", [], cap - bytes - Buffer.byteLength(marker(lines.length)) - 1);
  const left = lines.length - head.length - tail.split("\n").length;
  return [...head, ...(left > 0 ? [marker(left)] : []), tail].join("\n");
}

const CUT = "[…] ";

/** The end of `line` in at most `cap` bytes, behind a cut marker, without splitting a character. */
function lastBytes(line: string, cap: number): string {
  const room = cap - Buffer.byteLength(CUT);
  const bytes = Buffer.from(line, "utf8");
  let start = bytes.length - room;
  // Skip UTF-8 continuation bytes, so the cut falls between characters.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return CUT + bytes.subarray(start).toString("utf8");
}
