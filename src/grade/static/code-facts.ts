import { type FileView, newSideLines } from "./candidate-view.ts";
import { isSyntaxLanguage } from "./languages.ts";
import { collectByLines } from "./line-facts.ts";
import type { Syntax } from "./syntax.ts";
import { collectSyntax } from "./syntax-facts.ts";

/**
 * Syntax-level facts about what a file's patch adds: comments, definitions, and branches that compare
 * against a literal. For Python/JavaScript/TypeScript they come from tree-sitter, parsing each hunk's
 * new side (tree-sitter recovers from the cut-off edges of a hunk); for other languages from
 * line patterns, which see less but never fail.
 */

export interface CommentFact {
  /** Comment body without markers. */
  text: string;
  newLine: number;
  /** Whole-line comment (as opposed to a trailing comment after code). */
  ownLine: boolean;
  /** A documentation comment (`/** … *\/`, `///`, Javadoc lines), where code examples are expected. */
  doc: boolean;
}

export interface DefinitionFact {
  name: string;
  newLine: number;
  kind: "function" | "class";
  /**
   * Where it is defined. `unknown` when the hunk cut off the enclosing scope (an indented Python def
   * with no visible class or def above it may be a method).
   */
  container: "module" | "function" | "class" | "unknown";
  /** Exported, decorated or an override: reachable from outside the patch, so not judged unused. */
  external: boolean;
  /** Declared private (`_name` in Python, `#name`/`_name` in JS, `private` in Java): surely internal. */
  private: boolean;
}

export interface LiteralBranchFact {
  newLine: number;
  /** The compared expression, e.g. `name` in `name == "x"`. */
  subject: string;
  /** The literal values compared against (several for `in (…)`). */
  compared: string[];
  /** The literal the branch returns, as written; null when it returns something computed or boolean. */
  returned: string | null;
  /** The returned literal's values (string contents, number text, collection elements), for matching tests. */
  returnedValues: string[];
}

export interface CodeFacts {
  comments: CommentFact[];
  definitions: DefinitionFact[];
  branches: LiteralBranchFact[];
}

export function codeFacts(file: FileView, syntax: Syntax): CodeFacts {
  const facts: CodeFacts = { comments: [], definitions: [], branches: [] };
  if (file.binary || file.hunks.length === 0) return facts;
  const language = file.language;
  if (isSyntaxLanguage(language)) {
    const lines = newSideLines(file);
    for (let h = 0; h < file.hunks.length; h++) {
      const rows = lines.filter((l) => l.hunk === h);
      if (!rows.some((r) => r.added)) continue;
      const text = rows.map((r) => r.text).join("\n");
      syntax.withTree(language, text, (root) => collectSyntax(root, language, rows, facts));
    }
    return facts;
  }
  collectByLines(file, facts);
  return facts;
}

/** One line of a hunk's new side, as the fact collectors see it. */
export type Row = { text: string; newLine: number; added: boolean };
