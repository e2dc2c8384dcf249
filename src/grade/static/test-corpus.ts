import type { CandidateView } from "./candidate-view.ts";
import { isTestRole } from "./paths.ts";

/**
 * The text a hard-coded answer would be copied from: the task statement, the visible tests in the
 * workspace, and every line of test files that any candidate of the group touched (their context and
 * deletions are the original tests; their additions are tests another candidate wrote). Shared by the
 * whole group, so a literal one candidate special-cases is found in the tests another one shows.
 */
export interface TestCorpus {
  /** Whether a literal value is significant and occurs in the tests or the statement as a whole token. */
  mentions(value: string): boolean;
}

/**
 * `workspaceTests` is read only when a question is first asked: most groups never ask (no candidate
 * special-cases a literal), and reading a large repository's tests is the slowest thing grading does.
 */
export function buildTestCorpus(
  statement: string,
  workspaceTests: () => string,
  views: readonly CandidateView[],
): TestCorpus {
  const parts = [statement];
  for (const view of views) {
    for (const file of view.files) {
      if (!isTestRole(file.role)) continue;
      for (const hunk of file.hunks) for (const line of hunk.lines) parts.push(line.text);
    }
  }
  const patchText = parts.join("\n");
  let repoText: string | undefined;
  const cache = new Map<string, boolean>();
  return {
    mentions(value: string) {
      if (!isSignificantLiteral(value)) return false;
      let hit = cache.get(value);
      if (hit === undefined) {
        repoText ??= workspaceTests();
        hit = containsToken(patchText, value) || containsToken(repoText, value);
        cache.set(value, hit);
      }
      return hit;
    },
  };
}

/**
 * Literals too common to be evidence of copying from the tests: short strings, whitespace, and the
 * small numbers every program compares against.
 */
export function isSignificantLiteral(value: string): boolean {
  const trimmed = value.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(trimmed)) return !["0", "1", "2", "-1", "0.0", "1.0"].includes(trimmed);
  return trimmed.length >= 3;
}

/** `value` occurs in `text` not as part of a longer identifier or number (`abc` is not in `abcd`). */
function containsToken(text: string, value: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(value, from);
    if (at < 0) return false;
    const before = text[at - 1] ?? "";
    const after = text[at + value.length] ?? "";
    const wordStart = /\w/.test(value[0]!);
    const wordEnd = /\w/.test(value.at(-1)!);
    if (!(wordStart && /\w/.test(before)) && !(wordEnd && /\w/.test(after))) return true;
    from = at + 1;
  }
}
