import type { Hunk } from "../../diff/parse.ts";
import type { FileView } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { isJavaScriptFamily, type LanguageId, languageOf } from "./languages.ts";
import type { Syntax } from "./syntax.ts";

/**
 * The literals one file's original code already tests against, so that a candidate re-expressing
 * that code is not taken for introducing them: `if (charset === 'iso-8859-1')` turned into a ternary
 * keeps a condition the file had, and `arg.indexOf('--no-') === 0` in place of `/^--no-.+/` spells
 * out text the file's regular expression already matched.
 *
 * Two sources, read from the whole file (the workspace's copy) or from the pieces of it that the
 * group's diff hunks show:
 * - the literals of the original code's own conditions, found by the same detector that finds a
 *   candidate's (code-facts.ts: `==`, `in (…)`, `.includes`, `case`…);
 * - the text regular expressions match verbatim: JavaScript `/…/` literals, and strings that are
 *   patterns (Python raw strings, arguments of `RegExp(`, `re.…(`, `Pattern.compile(`), cut into
 *   runs at metacharacters (`/^--no-(.+)/` → `--no-`); a value inside a run counts.
 * A literal the file only holds as data (a table of unit names) is not a test, so a new condition
 * picking some of its entries still counts as new.
 */
export interface OriginalLiterals {
  has(value: string): boolean;
}

export function originalLiterals(pieces: readonly string[], path: string, syntax: Syntax): OriginalLiterals {
  const language = languageOf(path);
  const runs = pieces.flatMap((piece) => patternRuns(piece, language));
  // A piece is parsed only when the regular expressions, read lexically, do not answer and the
  // value's text is in that piece at all: a tested literal is written in it (quotes, spaces and
  // escapes aside, which covers `- 1` for -1 and implicitly joined strings).
  const parts: Piece[] = pieces.map((text) => ({ text }));
  const testedIn = (part: Piece, plain: string) => {
    part.bare ??= bareText(unescapeLiteral(part.text));
    const needle = bareText(plain);
    if (needle !== "" && !part.bare.includes(needle)) return false;
    if (part.tested === undefined) {
      part.tested = new Set();
      for (const branch of codeFacts(originalFile([part.text], path), syntax, "branches").branches)
        for (const test of branch.tests) for (const v of test.values) part.tested.add(unescapeLiteral(v));
    }
    return part.tested.has(plain);
  };
  return {
    has(value: string) {
      const plain = unescapeLiteral(value);
      return runs.some((run) => run.includes(plain)) || parts.some((part) => testedIn(part, plain));
    },
  };
}

/** One piece of the original file, with what was learnt of it so far. */
interface Piece {
  text: string;
  /** The text without quotes, whitespace and backslashes (bareText), unescaped. */
  bare?: string;
  /** The literals its conditions test against, once parsed. */
  tested?: Set<string>;
}

/** Text without quotes, whitespace and backslashes. */
function bareText(text: string): string {
  return text.replace(/["'`\s\\]+/g, "");
}

/** The pieces as a file whose every line is added, which is what the fact collectors read. */
function originalFile(pieces: readonly string[], path: string): FileView {
  const hunks: Hunk[] = pieces.map((piece) => {
    const lines = piece.split("\n").map((text, i) => ({ kind: "add" as const, text, newLine: i + 1 }));
    return { oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, header: "", lines };
  });
  return {
    path,
    key: path,
    status: "added",
    binary: false,
    role: "source",
    language: languageOf(path),
    hunks,
    changes: [],
  };
}

/** Verbatim runs of every regular expression in `text`, read lexically with comments skipped. */
function patternRuns(text: string, language: LanguageId | null): string[] {
  const runs: string[] = [];
  const hashComments = language === "python" || language === "ruby" || language === "shell";
  const regexLiterals = isJavaScriptFamily(language);
  let previous = ""; // last significant code token, to tell a regex `/` from a division
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1];
    if ((ch === "/" && next === "/") || (hashComments && ch === "#")) {
      i = lineEnd(text, i);
    } else if (ch === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (ch === '"' || ch === "'" || ch === "`") {
      const quote = !regexLiterals && text.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const end = stringEnd(text, i, quote);
      const pattern = patternString(text, i);
      const body = text.slice(i + quote.length, end);
      // A raw string is the pattern as written; any other first has its string escapes undone.
      if (pattern) runs.push(...verbatimRuns(pattern === "raw" ? body : unescapeLiteral(body)));
      i = end + quote.length;
      previous = ch;
    } else if (regexLiterals && ch === "/" && startsRegex(previous)) {
      const end = regexEnd(text, i);
      runs.push(...verbatimRuns(text.slice(i + 1, end)));
      i = end + 1;
      previous = "/";
    } else if (isWordChar(ch)) {
      let end = i + 1;
      while (end < text.length && isWordChar(text[end]!)) end++;
      // Only a keyword lets a regex follow a word; any longer word is kept as a marker that does not.
      previous = end - i <= MAX_KEYWORD ? text.slice(i, end) : "_";
      i = end;
    } else {
      if (!/\s/.test(ch)) previous = ch;
      i++;
    }
  }
  return runs;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end < 0 ? text.length : end;
}

/** Index where the string opened at `at` by `quote` closes (the text's end if it never does). */
function stringEnd(text: string, at: number, quote: string): number {
  for (let i = at + quote.length; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text.startsWith(quote, i)) return i;
    else if (quote.length === 1 && quote !== "`" && text[i] === "\n") return i;
  }
  return text.length;
}

/** A string used as a pattern: a Python raw string, or the first argument of a regex constructor. */
function patternString(text: string, quoteAt: number): "raw" | "escaped" | null {
  const before = text.slice(Math.max(0, quoteAt - 40), quoteAt);
  if (/(?:^|[^\w])(?:[rR][bB]?|[bB][rR])$/.test(before)) return "raw";
  return PATTERN_CALL.test(before) ? "escaped" : null;
}

const PATTERN_CALL = /(?:\bRegExp|\bre\.\w+|\bPattern\.compile|\bregex\.\w+)\s*\(\s*$/;

/** After these, `/` starts a regular expression literal rather than dividing. */
function startsRegex(previous: string): boolean {
  return previous === "" || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(previous) || REGEX_KEYWORDS.has(previous);
}

const REGEX_KEYWORDS = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
]);
const MAX_KEYWORD = 6;

/** `[\w$]`, without a regular expression per character. */
function isWordChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

/** Index of the `/` closing the regex literal opened at `at` (a class `[…]` may hold `/`). */
function regexEnd(text: string, at: number): number {
  let inClass = false;
  for (let i = at + 1; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") i++;
    else if (ch === "\n") return i;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if (ch === "/") return i;
  }
  return text.length;
}

/**
 * The runs of characters a pattern matches verbatim. Metacharacters, classes and class escapes
 * (`\d`, `\s`…) end a run, and so does a quantifier, which also takes back the character it repeats
 * when that may be absent (`*`, `?`, `{0,n}`); an escaped metacharacter (`\.`, `\/`) is itself.
 */
function verbatimRuns(pattern: string): string[] {
  const runs: string[] = [];
  let run = "";
  const flush = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      const escaped = pattern[i + 1] ?? "";
      i++;
      if (/[A-Za-z0-9]/.test(escaped)) flush();
      else run += escaped;
    } else if (ch === "[") {
      flush();
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
    } else if ("*+?{".includes(ch)) {
      // The repeated character stays only when it must occur (`+`, `{1,}`); nothing after it is adjacent.
      let optional = ch === "*" || ch === "?";
      if (ch === "{") {
        const close = pattern.indexOf("}", i);
        optional = /^\{0*(,|\})/.test(pattern.slice(i, close + 1));
        i = close < 0 ? pattern.length : close;
      }
      if (optional) run = run.slice(0, -1);
      flush();
    } else if ("^$.|()".includes(ch)) {
      flush();
    } else {
      run += ch;
    }
  }
  flush();
  return runs;
}

/** The value of a string literal's body as written (`\\` → `\`, `\"` → `"`, `\n`, `\t`, `\uXXXX`). */
export function unescapeLiteral(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, c: string) => {
    if (c.length > 1) return String.fromCharCode(Number.parseInt(c.slice(1), 16));
    return c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "\r" : c;
  });
}
