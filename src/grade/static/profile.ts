import { type CandidateView, newSideLines } from "./candidate-view.ts";
import type { CodeFacts } from "./code-facts.ts";
import { isSignificantLiteral } from "./test-corpus.ts";

/**
 * What one candidate shows the rest of the group, computed once per group so that group-relative
 * questions ("does another candidate use this name / add this line / compare with this literal?")
 * cost a set lookup per peer instead of a rescan of every peer's patch.
 */
export interface CandidateProfile {
  /** Identifiers on the patch's new side (context and additions, every file). */
  words: ReadonlySet<string>;
  /** `path\0line-without-whitespace` of every added line. */
  addedLines: ReadonlySet<string>;
  /** Significant literals its new branches compare against. */
  literals: ReadonlySet<string>;
}

export function profileOf(view: CandidateView, facts: ReadonlyMap<string, CodeFacts>): CandidateProfile {
  const words = new Set<string>();
  const addedLines = new Set<string>();
  for (const file of view.files) {
    for (const row of newSideLines(file)) for (const w of row.text.match(IDENTIFIER) ?? []) words.add(w);
    for (const c of file.changes) if (c.kind === "add") addedLines.add(lineKey(file.path, c.norm));
  }
  const literals = new Set<string>();
  for (const file of facts.values()) {
    for (const branch of file.branches)
      for (const v of branch.compared) if (isSignificantLiteral(v)) literals.add(v);
  }
  return { words, addedLines, literals };
}

export const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

export function lineKey(path: string, norm: string): string {
  return `${path}\u0000${norm}`;
}
