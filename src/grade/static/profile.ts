import { type CandidateView, newSideLines } from "./candidate-view.ts";

/**
 * What one candidate shows the rest of the group, computed once per group so that group-relative
 * questions ("does another candidate use this name / add this line / compare with this literal?")
 * cost a set lookup per peer instead of a rescan of every peer's patch.
 */
export interface CandidateProfile {
  /** Identifiers on the patch's new side (context and additions, every file). */
  words: ReadonlySet<string>;
  /** `path\0line-without-whitespace` of every added line of a source file (what the detectors ask about). */
  addedLines: ReadonlySet<string>;
  /** String and number literals (contents, as written) of its added source lines, with how often each occurs. */
  literals: ReadonlyMap<string, number>;
}

export function profileOf(view: CandidateView): CandidateProfile {
  const addedLines = new Set<string>();
  const literals = new Map<string, number>();
  for (const file of view.files) {
    if (file.role !== "source") continue;
    for (const c of file.changes) {
      if (c.kind !== "add") continue;
      addedLines.add(lineKey(file.path, c.norm));
      LITERAL.lastIndex = 0;
      for (let m = LITERAL.exec(c.text); m !== null; m = LITERAL.exec(c.text)) {
        const value = m[1] ?? m[2] ?? m[3]!;
        literals.set(value, (literals.get(value) ?? 0) + 1);
      }
    }
  }
  // Only asked about a peer of a candidate that adds a definition nothing else uses.
  let words: Set<string> | undefined;
  return {
    get words() {
      words ??= wordsOf(view);
      return words;
    },
    addedLines,
    literals,
  };
}

function wordsOf(view: CandidateView): Set<string> {
  const words = new Set<string>();
  for (const file of view.files)
    for (const row of newSideLines(file)) for (const w of row.text.match(IDENTIFIER) ?? []) words.add(w);
  return words;
}

export const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
const LITERAL = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w.])/g;

export function lineKey(path: string, norm: string): string {
  return `${path}\u0000${norm}`;
}
