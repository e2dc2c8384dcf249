import type { Node } from "web-tree-sitter";
import type { FileView } from "./candidate-view.ts";
import type { CodeFacts, CommentFact } from "./code-facts.ts";
import type { Evidence } from "./evidence.ts";
import { isSyntaxLanguage, type LanguageId, type SyntaxLanguage } from "./languages.ts";
import type { Syntax } from "./syntax.ts";

/**
 * Evidence found in added comments: commented-out code and TODO-style markers.
 *
 * Whether a comment is code is decided by parsing its text: for Python/JavaScript/TypeScript with
 * tree-sitter (the text must parse without errors into a real statement: a call, an assignment,
 * a return, a declaration… so prose such as "return the cached value" or "see JDK-6609675" is not
 * code), for other languages by the shape of a statement (ends in `;`, `{`, a call…).
 */
export function commentEvidence(file: FileView, facts: CodeFacts, syntax: Syntax): Evidence[] {
  const evidence: Evidence[] = [];
  const deleted = file.changes.filter((c) => c.kind === "del").map((c) => c.norm);
  for (const comment of facts.comments) {
    const marker = MARKER.exec(comment.text);
    // A marker that was already there (moved or re-indented with its code) is not new.
    const existed = deleted.some((d) => d.includes(noSpace(comment.text)));
    if (marker && !existed) {
      evidence.push({
        kind: "todo-marker",
        file: file.path,
        line: comment.newLine,
        message: `added ${marker[1]} comment "${clip(comment.text)}": finish the work or drop the note`,
      });
    }
  }
  for (const block of commentBlocks(facts.comments)) {
    const codeLines = block.filter((c) => isCommentedCode(c.text, file.language, syntax));
    if (codeLines.length === 0 || codeLines.length * 2 < block.length) continue;
    evidence.push({
      kind: "commented-out-code",
      file: file.path,
      line: block[0]!.newLine,
      message: `commented-out code "${clip(codeLines[0]!.text)}"${block.length > 1 ? ` (${block.length} comment lines)` : ""}: delete it, version control keeps the old code`,
    });
  }
  return evidence;
}

/** Case-sensitive: "todo" in prose ("a todo list") is not a marker. */
const MARKER = /\b(TODO|FIXME|XXX|HACK)\b/;

function noSpace(text: string): string {
  return text.replace(/\s+/g, "");
}

function clip(text: string, max = 60): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * Consecutive whole-line comments form one block (one finding per commented-out stretch). Doc
 * comments are left out: code examples belong there.
 */
function commentBlocks(comments: readonly CommentFact[]): CommentFact[][] {
  const blocks: CommentFact[][] = [];
  const own = [...comments].filter((c) => c.ownLine && !c.doc).sort((a, b) => a.newLine - b.newLine);
  for (const comment of own) {
    const block = blocks.at(-1);
    const lastLine = block?.at(-1);
    if (block && lastLine && comment.newLine - lastLine.newLine <= 1) block.push(comment);
    else blocks.push([comment]);
  }
  return blocks;
}

/** Tool directives look like code to a parser but are meant to stay. */
const PRAGMA =
  /^\s*(noqa|type:|pragma|eslint|@ts-|prettier-ignore|istanbul|c8 |fmt:|isort:|pylint:|mypy:|NOSONAR|language=|#?region|#?endregion|sourceMappingURL|jshint|global |exported |biome-ignore|deno-lint|@flow|@jsx|@refresh|nolint|lgtm)/i;

const cache = new Map<string, boolean>();

/** Whether a comment's text is code that was commented out. */
export function isCommentedCode(text: string, language: LanguageId | null, syntax: Syntax): boolean {
  const trimmed = text.trim();
  if (trimmed.length < 4 || PRAGMA.test(trimmed) || /^https?:\/\//.test(trimmed)) return false;
  const key = `${language}\u0000${trimmed}`;
  let result = cache.get(key);
  if (result === undefined) {
    result = isSyntaxLanguage(language)
      ? parsesAsCode(trimmed, language, syntax)
      : looksLikeStatement(trimmed);
    if (cache.size > 10_000) cache.clear();
    cache.set(key, result);
  }
  return result;
}

const PY_CODE = new Set([
  "return_statement",
  "if_statement",
  "for_statement",
  "while_statement",
  "with_statement",
  "try_statement",
  "import_statement",
  "import_from_statement",
  "function_definition",
  "class_definition",
  "decorated_definition",
  "raise_statement",
  "del_statement",
  "assert_statement",
]);
const JS_CODE = new Set([
  "return_statement",
  "if_statement",
  "for_statement",
  "for_in_statement",
  "while_statement",
  "switch_statement",
  "try_statement",
  "throw_statement",
  "import_statement",
  "export_statement",
  "function_declaration",
  "class_declaration",
  "lexical_declaration",
  "variable_declaration",
]);
const CODE_EXPRESSIONS = new Set([
  "call",
  "call_expression",
  "assignment",
  "augmented_assignment",
  "assignment_expression",
  "augmented_assignment_expression",
  "update_expression",
  "await",
  "await_expression",
  "new_expression",
]);

function parsesAsCode(text: string, language: SyntaxLanguage, syntax: Syntax): boolean {
  return syntax.withTree(language, text, (root) => {
    if (root.hasError) return false;
    const statements = root.namedChildren.filter((n): n is Node => n !== null && n.type !== "comment");
    if (statements.length === 0) return false;
    const codeTypes = language === "python" ? PY_CODE : JS_CODE;
    return statements.some((s) => {
      if (codeTypes.has(s.type))
        return s.type !== "return_statement" || s.namedChildren.length > 0 || /;\s*$/.test(text);
      if (s.type !== "expression_statement") return false;
      const expression = s.namedChildren[0];
      if (!expression || !CODE_EXPRESSIONS.has(expression.type)) return false;
      // `name: type` (a Python annotation with no value) is how "Note: something" parses.
      return !(expression.type === "assignment" && expression.childForFieldName("right") === null);
    });
  });
}

const STATEMENT_SHAPES = [
  /^(return|throw|if|for|while|else|try|catch|import|package|var|val|let|const|fn|func|def)\b.*[;{)]$/,
  /^[\w.<>[\], ]+\s*[+\-*/]?=\s*[^=].*;$/,
  /^[\w.$]+(\[[^\]]*\])*(\.[\w$]+)*\(.*\)\s*;$/,
  /^}\s*(else|catch|finally)\b.*\{$/,
];

/** Diff-level test for languages without a parser here: does the text have the shape of a statement? */
function looksLikeStatement(text: string): boolean {
  if (/^@\w+/.test(text) || /^[A-Z][a-z]+ [a-z]+ /.test(text)) return false;
  return STATEMENT_SHAPES.some((re) => re.test(text));
}
