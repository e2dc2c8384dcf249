import type { CandidateView } from "./candidate-view.ts";
import { type OriginalLiterals, originalLiterals, unescapeLiteral } from "./original-literals.ts";
import { isTestRole } from "./paths.ts";
import type { Syntax } from "./syntax.ts";

/**
 * Where a hard-coded answer would be copied from, and where a literal already lived.
 *
 * The *examples* are the task statement, the visible tests in the workspace, and every line of test
 * files that any candidate of the group touched (their context and deletions are the original tests;
 * their additions are tests another candidate wrote: `seenBy` leaves a candidate's own additions
 * out). The *original code* is what the source files
 * held before the patches: the deleted and context lines of every candidate's source changes, and
 * the workspace's source files. Both are shared by the whole group, so a literal one candidate
 * special-cases is found in the tests another one shows.
 */
export interface TestCorpus {
  /** Whether a literal that can be evidence (isEvidenceLiteral) occurs in the examples as a whole token. */
  mentions(value: string): boolean;
  /**
   * Whether the original code already wrote this literal (quoted, or as a whole token when it is a
   * number or an identifier: an option name, a key), so it is not new to the patch.
   */
  inOriginalCode(value: string): boolean;
  /**
   * Whether the original code of the file at `path` already tested against this literal, in a
   * condition or a regular expression (original-literals.ts): a candidate re-expressing that test
   * does not introduce the literal. Always false when the corpus was built without `original`.
   */
  inOriginalFile(path: string, value: string): boolean;
  /**
   * The corpus as one candidate's own code is judged against it: without the test lines that
   * candidate itself added. Tests a patch writes for its own fix spell the values its code handles
   * because the code handles them; they are not a source it could have copied from. Another
   * candidate's added tests still are (they show what the task's examples look like).
   */
  seenBy(candidate: string): TestCorpus;
}

/** The original files, where the candidates' hunks show only pieces of them. */
export interface OriginalFiles {
  /** A file's text at the base commit (the workspace's copy), or null when there is none. */
  read(path: string): string | null;
  syntax: Syntax;
}

/**
 * Workspace text is read only when a question is first asked: most groups never ask (no candidate
 * tests against a literal), and reading a large repository is the slowest thing grading does.
 */
export function buildTestCorpus(
  statement: string,
  workspaceTests: () => string,
  views: readonly CandidateView[],
  workspaceSource: () => string = () => "",
  original?: OriginalFiles,
): TestCorpus {
  const examples = [statement];
  const added = new Map<string, string[]>();
  const originalLines: string[] = [];
  for (const view of views) {
    const own: string[] = [];
    added.set(view.id, own);
    for (const file of view.files) {
      const test = isTestRole(file.role);
      if (!test && file.role !== "source") continue;
      for (const hunk of file.hunks) {
        for (const line of hunk.lines) {
          if (test) (line.kind === "add" ? own : examples).push(line.text);
          else if (line.kind !== "add") originalLines.push(line.text);
        }
      }
    }
  }
  const exampleText = examples.join("\n");
  const addedText = new Map([...added].map(([id, lines]) => [id, lines.join("\n")]));
  const originalText = originalLines.join("\n");
  let repoTests: string | undefined;
  let repoSource: string | undefined;
  const existing = new Map<string, boolean>();
  const fileLiterals = new Map<string, OriginalLiterals>();
  const literalsOf = (path: string, files: OriginalFiles) => {
    let literals = fileLiterals.get(path);
    if (literals === undefined) {
      // The whole file when the workspace has it, else the pieces of it the group's hunks show.
      const whole = files.read(path);
      literals = originalLiterals(
        whole !== null ? [whole] : contiguousPieces(shownLines(views, path)),
        path,
        files.syntax,
      );
      fileLiterals.set(path, literals);
    }
    return literals;
  };
  // Per value: whether the shared examples hold it, else the candidates whose added tests do.
  const mentioned = new Map<string, true | Set<string>>();
  const writers = (value: string): true | Set<string> => {
    let hit = mentioned.get(value);
    if (hit === undefined) {
      repoTests ??= workspaceTests();
      // Tests hold the literal as written; prose holds its value.
      const forms = [...new Set([value, unescapeLiteral(value)])];
      const has = (text: string) => forms.some((v) => containsToken(text, v));
      hit =
        has(exampleText) || has(repoTests)
          ? true
          : new Set([...addedText].filter(([, t]) => has(t)).map(([id]) => id));
      mentioned.set(value, hit);
    }
    return hit;
  };
  const corpus = (except: string | null): TestCorpus => ({
    mentions(value: string) {
      if (!isEvidenceLiteral(value)) return false;
      const hit = writers(value);
      return hit === true || [...hit].some((id) => id !== except);
    },
    inOriginalCode(value: string) {
      let hit = existing.get(value);
      if (hit === undefined) {
        repoSource ??= workspaceSource();
        hit = inCode(originalText, value) || inCode(repoSource, value);
        existing.set(value, hit);
      }
      return hit;
    },
    inOriginalFile(path: string, value: string) {
      return original !== undefined && literalsOf(path, original).has(value);
    },
    seenBy: (candidate: string) => corpus(candidate),
  });
  return corpus(null);
}

/**
 * Literals too common to be evidence of copying from the tests: short strings, whitespace, and the
 * small numbers every program compares against.
 */
export function isSignificantLiteral(value: string): boolean {
  const trimmed = value.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(trimmed)) return !TRIVIAL_NUMBERS.has(trimmed);
  return trimmed.length >= 3;
}

/**
 * Literals that can be evidence of copying when they also occur in the examples: significant ones,
 * two-character codes ("EU"), and single non-ASCII characters ("é"), which example values are made
 * of but generic code rarely is.
 */
export function isEvidenceLiteral(value: string): boolean {
  const trimmed = unescapeLiteral(value).trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(trimmed)) return !TRIVIAL_NUMBERS.has(trimmed);
  return trimmed.length >= 2 || hasNonAscii(trimmed);
}

export function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

const TRIVIAL_NUMBERS = new Set(["0", "1", "2", "-1", "0.0", "1.0"]);

/** `value` written in `code`: quoted, or as a whole token when it is a number or an identifier. */
function inCode(code: string, value: string): boolean {
  if (/^[-+]?\d+(\.\d+)?$/.test(value) || /^[A-Za-z_$][\w$]*$/.test(value)) return containsToken(code, value);
  return ['"', "'", "`"].some((quote) => code.includes(`${quote}${value}${quote}`));
}

/** `value` occurs in `text` not as part of a longer identifier or number (`abc` is not in `abcd`). */
function containsToken(text: string, value: string): boolean {
  if (value === "") return false;
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

/** The lines of a file before the patches that the group's hunks show, by old line number. */
function shownLines(views: readonly CandidateView[], path: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const view of views)
    for (const file of view.files) {
      if (file.path !== path || file.role !== "source" || file.status === "added") continue;
      for (const hunk of file.hunks)
        for (const line of hunk.lines) if (line.kind !== "add") lines.set(line.oldLine!, line.text);
    }
  return lines;
}

/**
 * The shown lines of a file as runs of consecutive old lines: every candidate's hunks of the file
 * together, each part once, in file order (each run parses on its own).
 */
function contiguousPieces(lines: ReadonlyMap<number, string> | undefined): string[] {
  if (!lines) return [];
  const pieces: string[] = [];
  let run: string[] = [];
  let previous = Number.NaN;
  for (const n of [...lines.keys()].sort((a, b) => a - b)) {
    if (n !== previous + 1 && run.length > 0) {
      pieces.push(run.join("\n"));
      run = [];
    }
    run.push(lines.get(n)!);
    previous = n;
  }
  if (run.length > 0) pieces.push(run.join("\n"));
  return pieces;
}
