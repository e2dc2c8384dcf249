import type { Group } from "../../contracts/group.ts";

/**
 * Pairwise accuracy of rankings against reference-based preferences (docs/grader-protocol.md,
 * "Evaluation"): the metric the project's grader evaluations report, kept line for line with the
 * Python reference script the held-out evaluations use, so both give the same number.
 *
 * U(patch) = lines the patch changes that the reference does not need: every changed line in a
 * file the reference's code does not touch (+2 for a binary or archive file, at least 1 per file),
 * plus changed lines more than 8 lines (old coordinates) from any line the reference changes.
 * Reference files that are docs or tests do not count as touched. A pair (a, b) of different
 * patches is *clear* when U(b) ≥ max(8, 3·U(a) + 4). Accuracy = hits / clear pairs, where a hit is
 * a ranked above b, a tie counts half, and a candidate missing from the ranking counts as a miss.
 * All candidates of a group take part, passing or not, as in the script.
 */
const DOC = /(^|\/)(CHANGELOG|CHANGES|HISTORY|NEWS|README)[^/]*$|\.(md|rst|txt)$|(^|\/)docs?\//i;
const TEST =
  /(^|\/)(tests?|__tests__|spec|__snapshots__)\/|\.(test|spec)\.[jt]sx?$|(^|\/)test_[^/]*\.py$|_test\.py$|Test\.java$|\.snap$/;
const JUNK = /\.(zip|tar|gz|tgz|jar|bin|png|jpg|pyc|so|dll|exe)$/i;
const PAD = 8;

interface Touched {
  lines: number[];
  binary: boolean;
}

/** file → old-coordinate lines touched, and whether the file is binary. */
export function touchedLines(patch: string): Map<string, Touched> {
  const out = new Map<string, Touched>();
  let cur: string | null = null;
  let old: number | null = null;
  for (const line of pythonSplitLines(patch)) {
    if (line.startsWith("diff --git ")) {
      const m = /^diff --git a\/(.*) b\/(.*)/.exec(line);
      cur = m ? m[2]! : line;
      out.set(cur, { lines: [], binary: false });
      old = null;
      continue;
    }
    if (cur === null) continue;
    const file = out.get(cur)!;
    if (line.startsWith("Binary files") || line.startsWith("GIT binary patch")) file.binary = true;
    else if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)/.exec(line);
      old = m ? Number(m[1]) : null;
    } else if (old === null || line.startsWith("---") || line.startsWith("+++")) continue;
    else if (line.startsWith("-")) file.lines.push(old++);
    else if (line.startsWith("+")) file.lines.push(old);
    else if (line.startsWith(" ")) old++;
  }
  return out;
}

/** U(patch) relative to the reference patch. */
export function unnecessaryLines(patch: string, reference: string): number {
  const ref = new Map([...touchedLines(reference)].filter(([f]) => !DOC.test(f) && !TEST.test(f)));
  let u = 0;
  for (const [f, { lines, binary }] of touchedLines(patch)) {
    const refLines = ref.get(f);
    if (!refLines) {
      u += Math.max(lines.length, 1) + (binary || JUNK.test(f) ? 2 : 0);
      continue;
    }
    u += lines.filter((x) => !refLines.lines.some((y) => Math.abs(x - y) <= PAD)).length;
  }
  return u;
}

/** Ordered pairs [a, b]: b carries plainly more unnecessary change than a. Empty without a reference. */
export function clearPairs(group: Group): Array<[string, string]> {
  const reference = group.reference?.patch;
  if (reference === undefined) return [];
  const patches = new Map(group.candidates.map((c) => [c.id, c.patch]));
  const u = new Map([...patches].map(([id, p]) => [id, unnecessaryLines(p, reference)]));
  const pairs: Array<[string, string]> = [];
  for (const a of patches.keys()) {
    for (const b of patches.keys()) {
      if (a === b || patches.get(a)!.trim() === patches.get(b)!.trim()) continue;
      if (u.get(b)! >= Math.max(8, 3 * u.get(a)! + 4)) pairs.push([a, b]);
    }
  }
  return pairs;
}

/** Changed lines of a patch (additions and deletions, every file): the "fewest changed lines" size. */
export function changedLineCount(patch: string): number {
  let n = 0;
  for (const { lines } of touchedLines(patch).values()) n += lines.length;
  return n;
}

/** Files a patch touches. */
export function changedFileCount(patch: string): number {
  return touchedLines(patch).size;
}

/**
 * Clear pairs whose better patch is the larger one (more changed lines): where counting lines
 * points the wrong way, so a grader must see *what* changed, not how much.
 */
export function sizeMisleadingPairs(group: Group, pairs = clearPairs(group)): Array<[string, string]> {
  const size = new Map(group.candidates.map((c) => [c.id, changedLineCount(c.patch)]));
  return pairs.filter(([a, b]) => size.get(a)! > size.get(b)!);
}

/** candidate id → tier index, from tiers best first. */
export function positionsOf(ranking: string[][]): Map<string, number> {
  return new Map(ranking.flatMap((tier, i) => tier.map((id) => [id, i] as const)));
}

export interface PairwiseScore {
  hits: number;
  pairs: number;
}

/** Hits (ties half, missing = miss) over the group's clear pairs, or over `pairs` when given. */
export function scorePairs(
  group: Group,
  ranking: string[][] | undefined,
  pairs = clearPairs(group),
): PairwiseScore {
  const pos = positionsOf(ranking ?? []);
  let hits = 0;
  for (const [a, b] of pairs) {
    const pa = pos.get(a);
    const pb = pos.get(b);
    if (pa === undefined || pb === undefined) continue;
    hits += pa < pb ? 1 : pa === pb ? 0.5 : 0;
  }
  return { hits, pairs: pairs.length };
}

/** Python's str.splitlines(): every line boundary it knows, no trailing empty line. */
function pythonSplitLines(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the separators Python's splitlines() uses
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
