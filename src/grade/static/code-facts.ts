import { type FileView, newSideLines } from "./candidate-view.ts";
import { isSyntaxLanguage } from "./languages.ts";
import { collectByLines } from "./line-facts.ts";
import type { Syntax } from "./syntax.ts";
import { collectSyntax } from "./syntax-facts.ts";

/**
 * Syntax-level facts about what a file's patch adds: comments, definitions, branches that test
 * against literals, and literal collections. For Python/JavaScript/TypeScript they come from tree-sitter, parsing each hunk's
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

/** `subject == literal`, `subject in (literals…)`, `literal.equals(subject)`, `case literal:`… */
export interface LiteralTest {
  /** The compared expression, e.g. `name` in `name == "x"`. */
  subject: string;
  /** The literal values it is compared against (several for `in (…)` or `a == "x" or a == "y"`). */
  values: string[];
  /**
   * Whether every comparison reads a piece at a fixed position of the subject rather than the whole
   * of it: `s.startswith("<!")`, `s.endsWith(".md")`, `s[i:i+3] == "<!["`, `s.slice(0, 2) === "0x"`.
   * That is how lexers and protocol code read a token; absent means false.
   */
  anchored?: boolean;
}

/** A branch the patch adds whose condition tests something against literals. */
export interface LiteralBranchFact {
  newLine: number;
  /** One entry per compared subject. */
  tests: LiteralTest[];
  /** The literal the branch returns, as written; null when it returns something computed or does not return. */
  returned: string | null;
  /** The literal values the branch's first statement returns or assigns (`return "x"`, `target = "x"`). */
  yielded: string[];
}

/**
 * A literal collection the patch adds (dict/object, set, list, tuple, array, `Set.of(…)`…) with at
 * least two literal entries, outside a condition (a tuple in `x in (…)` is a test, not a table).
 */
export interface CollectionFact {
  newLine: number;
  /** Literal keys of a mapping (empty for a sequence). */
  keys: string[];
  /** Literal values: a mapping's values, a sequence's elements. */
  values: string[];
}

export interface CodeFacts {
  comments: CommentFact[];
  definitions: DefinitionFact[];
  branches: LiteralBranchFact[];
  collections: CollectionFact[];
}

/** Which facts to collect: all of them, or only branches (what original-literals.ts asks of a file). */
export type FactScope = "all" | "branches";

/**
 * Facts of hunks already read, by language, scope and rows (text, added or not, line number): in a
 * group many candidates make the same change, and a hunk they share is parsed once. Facts are
 * read-only once made, so candidates can share them.
 */
export type HunkFactsCache = Map<string, CodeFacts>;

export function codeFacts(
  file: FileView,
  syntax: Syntax,
  scope: FactScope = "all",
  cache?: HunkFactsCache,
): CodeFacts {
  const facts: CodeFacts = { comments: [], definitions: [], branches: [], collections: [] };
  if (file.binary || file.hunks.length === 0) return facts;
  const language = file.language;
  if (isSyntaxLanguage(language)) {
    const byHunk: Row[][] = file.hunks.map(() => []);
    for (const line of newSideLines(file)) byHunk[line.hunk]!.push(line);
    for (const rows of byHunk) {
      if (!rows.some((r) => r.added)) continue;
      const text = rows.map((r) => r.text).join("\n");
      // A hunk's new-side rows are consecutive new-file lines: the first one's number places them all.
      const key =
        cache &&
        `${language}\u0000${scope}\u0000${rows[0]!.newLine}\u0000${rows.map(mark).join("")}\u0000${text}`;
      let found = key === undefined ? undefined : cache!.get(key);
      if (!found) {
        const hunk: CodeFacts = { comments: [], definitions: [], branches: [], collections: [] };
        syntax.withTree(language, text, (root) => collectSyntax(root, language, rows, hunk, scope));
        if (key !== undefined) cache!.set(key, hunk);
        found = hunk;
      }
      facts.comments.push(...found.comments);
      facts.definitions.push(...found.definitions);
      facts.branches.push(...found.branches);
      facts.collections.push(...found.collections);
    }
    return facts;
  }
  collectByLines(file, facts);
  return facts;
}

function mark(row: Row): string {
  return row.added ? "+" : " ";
}

/** One line of a hunk's new side, as the fact collectors see it. */
export type Row = { text: string; newLine: number; added: boolean };
