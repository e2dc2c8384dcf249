import { type FileView, newSideLines } from "./candidate-view.ts";
import type { CodeFacts, CollectionFact, LiteralBranchFact, LiteralTest, Row } from "./code-facts.ts";
import { commentPart, lineComment } from "./languages.ts";

const JAVA_PRIVATE_DEF =
  /^\s*private\s+(?:static\s+|final\s+|synchronized\s+)*(?:(class|interface|enum)\s+(\w+)|[\w<>[\],.? ]+?\s+(\w+)\s*\()/;
const LIT = String.raw`("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?)`;
const SUBJECT = String.raw`([A-Za-z_$][\w$.]*(?:\(\))?)`;
/**
 * Each pattern yields [subject, literal] in some order; the first that matches on an `if`/`case` line
 * wins. Global, for matchAll (which works on a copy, so they are never left mid-match).
 */
const LINE_COMPARISONS: { re: RegExp; subject: number; literal: number; anchored?: boolean }[] = [
  { re: new RegExp(`${SUBJECT}\\s*===?\\s*${LIT}`, "g"), subject: 1, literal: 2 },
  { re: new RegExp(`${LIT}\\s*===?\\s*${SUBJECT}`, "g"), subject: 2, literal: 1 },
  { re: new RegExp(`${LIT}\\.equals(?:IgnoreCase)?\\(\\s*${SUBJECT}\\s*\\)`, "g"), subject: 2, literal: 1 },
  { re: new RegExp(`${SUBJECT}\\.equals(?:IgnoreCase)?\\(\\s*${LIT}\\s*\\)`, "g"), subject: 1, literal: 2 },
  {
    re: new RegExp(`${SUBJECT}\\.(?:contains|indexOf)\\(\\s*${LIT}\\s*\\)`, "g"),
    subject: 1,
    literal: 2,
  },
  {
    re: new RegExp(`${SUBJECT}\\.(?:startsWith|endsWith)\\(\\s*${LIT}\\s*\\)`, "g"),
    subject: 1,
    literal: 2,
    anchored: true,
  },
  { re: new RegExp(`\\bcase\\s+${LIT}\\s*:`, "g"), subject: 0, literal: 1 },
];
const RETURN_LITERAL = new RegExp(String.raw`\breturn\s+${LIT}\s*;?\s*\}?\s*$`);
const ASSIGN_LITERAL = new RegExp(String.raw`^\s*[\w$.]+\s*=\s*${LIT}\s*;?\s*\}?\s*$`);
/** Literal collections written inline: `Set.of(…)`, `List.of(…)`, `Map.of(…)`, `Arrays.asList(…)`, `new T[] {…}`. */
const INLINE_COLLECTION =
  /\b(?:(Set|List|Map|Arrays)\.(?:of|asList|ofEntries)\s*\(([^()]*)\)|new\s+[\w.<>]+\s*\[\s*\]\s*\{([^{}]*)\})/g;
const LIT_LIST = new RegExp(String.raw`^\s*${LIT}(?:\s*,\s*${LIT})*\s*,?\s*$`);
const LIT_GLOBAL = new RegExp(LIT, "g");

/**
 * Diff-level fallback for languages without a parser here: comments, private definitions (Java-like),
 * `if`/`case` lines that test against literals (with a literal returned or assigned on that line or
 * the next), and inline literal collections. Source files of an unknown language get whole-line comments in the
 * common comment syntaxes only; data and docs files get nothing.
 */
export function collectByLines(file: FileView, facts: CodeFacts): void {
  if (file.language === null) {
    if (file.role === "source") collectGenericComments(file, facts);
    return;
  }
  const rows = newSideLines(file);
  rows.forEach((row, i) => {
    if (!row.added) return;
    const comment = lineComment(row.text, file.language);
    if (comment !== null) {
      facts.comments.push({
        text: comment,
        newLine: row.newLine,
        ownLine: true,
        doc: DOC_LINE.test(row.text),
      });
      return;
    }
    const trailing = commentPart(row.text, file.language);
    if (trailing !== null)
      facts.comments.push({ text: trailing, newLine: row.newLine, ownLine: false, doc: false });
    const def = JAVA_PRIVATE_DEF.exec(row.text);
    if (def && (file.language === "java" || file.language === "kotlin" || file.language === "csharp")) {
      const prev = rows[i - 1]?.text.trim() ?? "";
      facts.definitions.push({
        name: def[2] ?? def[3]!,
        newLine: row.newLine,
        kind: def[1] ? "class" : "function",
        container: "class",
        external: prev.startsWith("@"),
        private: true,
      });
    }
    const branch = lineBranch(rows, i);
    if (branch) facts.branches.push(branch);
    else facts.collections.push(...lineCollections(row));
  });
}

/** Javadoc/KDoc/JSDoc body lines and Rust/C# doc comments. */
const DOC_LINE = /^\s*(\/\*\*|\*(?!\/)|\/\/[/!])/;
const GENERIC_COMMENT = /^\s*(?:#|\/\/|--|;+|%)\s?(.*)$/;

function collectGenericComments(file: FileView, facts: CodeFacts): void {
  for (const c of file.changes) {
    const match = c.kind === "add" ? GENERIC_COMMENT.exec(c.text) : null;
    if (match) facts.comments.push({ text: match[1]!.trim(), newLine: c.newLine, ownLine: true, doc: false });
  }
}

function lineBranch(rows: Row[], i: number): LiteralBranchFact | null {
  const text = rows[i]!.text;
  if (!/\b(if|case)\b/.test(text)) return null;
  const found: { at: number; end: number; subject: string; value: string; anchored: boolean }[] = [];
  for (const { re, subject, literal, anchored = false } of LINE_COMPARISONS) {
    for (const match of text.matchAll(re)) {
      const at = match.index;
      found.push({
        at,
        end: at + match[0].length,
        subject: subject ? match[subject]! : "switch",
        value: unquote(match[literal]!),
        anchored,
      });
    }
  }
  const tests: LiteralTest[] = [];
  for (const f of found.sort((a, b) => a.at - b.at)) {
    const test = tests.find((t) => t.subject === f.subject);
    if (test) {
      test.values.push(f.value);
      if (!f.anchored) delete test.anchored;
    } else tests.push({ subject: f.subject, values: [f.value], ...(f.anchored && { anchored: true }) });
  }
  const end = Math.max(0, ...found.map((f) => f.end));
  if (tests.length === 0) return null;
  // What it yields sits on the same line or on the next added line or two (past a lone brace).
  let returned: string | null = RETURN_LITERAL.exec(text.slice(end))?.[1] ?? null;
  let assigned: string | null = null;
  for (let j = i + 1; returned === null && assigned === null && j <= i + 2 && rows[j]?.added; j++) {
    const next = rows[j]!.text.trim();
    const ret = RETURN_LITERAL.exec(next);
    if (ret && next.startsWith("return")) returned = ret[1]!;
    else if (ASSIGN_LITERAL.test(next)) assigned = ASSIGN_LITERAL.exec(next)![1]!;
    else if (next !== "" && next !== "{") break;
  }
  const yielded = returned ?? assigned;
  return { newLine: rows[i]!.newLine, tests, returned, yielded: yielded === null ? [] : [unquote(yielded)] };
}

/** Inline literal collections on an added line (all arguments literals, at least two). */
function lineCollections(row: Row): CollectionFact[] {
  const out: CollectionFact[] = [];
  for (const match of row.text.matchAll(INLINE_COLLECTION)) {
    const args = match[2] ?? match[3] ?? "";
    if (!LIT_LIST.test(args)) continue;
    const literals = (args.match(LIT_GLOBAL) ?? []).map(unquote);
    if (literals.length < 2) continue;
    const isMap = match[1] === "Map";
    out.push({
      newLine: row.newLine,
      keys: isMap ? literals.filter((_, k) => k % 2 === 0) : [],
      values: isMap ? literals.filter((_, k) => k % 2 === 1) : literals,
    });
  }
  return out;
}

function unquote(literal: string): string {
  return /^["']/.test(literal) ? literal.slice(1, -1) : literal;
}
