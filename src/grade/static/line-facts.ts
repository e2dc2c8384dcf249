import { type FileView, newSideLines } from "./candidate-view.ts";
import type { CodeFacts, LiteralBranchFact, Row } from "./code-facts.ts";
import { commentPart, lineComment } from "./languages.ts";

const JAVA_PRIVATE_DEF =
  /^\s*private\s+(?:static\s+|final\s+|synchronized\s+)*(?:(class|interface|enum)\s+(\w+)|[\w<>[\],.? ]+?\s+(\w+)\s*\()/;
const LIT = String.raw`("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?)`;
const SUBJECT = String.raw`([A-Za-z_$][\w$.]*(?:\(\))?)`;
/** Each pattern yields [subject, literal] in some order; the first that matches on an `if`/`case` line wins. */
const LINE_COMPARISONS: { re: RegExp; subject: number; literal: number }[] = [
  { re: new RegExp(`${SUBJECT}\\s*===?\\s*${LIT}`), subject: 1, literal: 2 },
  { re: new RegExp(`${LIT}\\s*===?\\s*${SUBJECT}`), subject: 2, literal: 1 },
  { re: new RegExp(`${LIT}\\.equals(?:IgnoreCase)?\\(\\s*${SUBJECT}\\s*\\)`), subject: 2, literal: 1 },
  { re: new RegExp(`${SUBJECT}\\.equals(?:IgnoreCase)?\\(\\s*${LIT}\\s*\\)`), subject: 1, literal: 2 },
  { re: new RegExp(`\\bcase\\s+${LIT}\\s*:`), subject: 0, literal: 1 },
];
const RETURN_LITERAL = new RegExp(String.raw`\breturn\s+${LIT}\s*;?\s*\}?\s*$`);

/**
 * Diff-level fallback for languages without a parser here: comments, private definitions (Java-like)
 * and `if (x == LIT) return LIT`. Source files of an unknown language get whole-line comments in the
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
  for (const { re, subject, literal } of LINE_COMPARISONS) {
    const match = re.exec(text);
    if (!match) continue;
    // The returned literal sits on the same line or on the next added line or two (past a lone brace).
    let returned: string | null = RETURN_LITERAL.exec(text.slice(match.index))?.[1] ?? null;
    for (let j = i + 1; returned === null && j <= i + 2 && rows[j]?.added; j++) {
      const next = rows[j]!.text.trim();
      const ret = RETURN_LITERAL.exec(next);
      if (ret && next.startsWith("return")) returned = ret[1]!;
      else if (next !== "" && next !== "{") break;
    }
    return {
      newLine: rows[i]!.newLine,
      subject: subject ? match[subject]! : "switch",
      compared: [unquote(match[literal]!)],
      returned,
      returnedValues: returned === null ? [] : [unquote(returned)],
    };
  }
  return null;
}

function unquote(literal: string): string {
  return /^["']/.test(literal) ? literal.slice(1, -1) : literal;
}
