import type { CandidateView, ChangedLine, FileView } from "./candidate-view.ts";
import type { ResolvedStaticOptions } from "./defaults.ts";
import type { Evidence } from "./evidence.ts";
import { IDENTIFIER } from "./profile.ts";

/**
 * Unnecessary change, measured against the group's minimal common core.
 *
 * Every passing candidate is a sufficient fix made from the same base commit, so a change that some
 * passing candidate does without is not needed by every sufficient fix. The *core* of the group is
 * what all of them change; a candidate's *excess* is what it changes beyond that. A changed source
 * line belongs to the core when every other clean candidate (no critical finding: a hack need not
 * fix anything) *shares* it — changes the same file within `coreReach` lines of it (old-file
 * coordinates, so edits made from the same base compare by position), or makes the same change
 * elsewhere in that file: the same line (up to its if-chain joint), or the same line with at most
 * half its identifiers renamed. The core is an intersection, never a union, so a smaller sufficient change is never charged for
 * being small: if one candidate's changed lines are a subset of another's, its excess is no larger.
 *
 * Excess is reported as evidence with a line count: `extra-file` (a source file some clean peer
 * leaves alone: all its lines), `outside-consensus` (runs of lines beyond the core, merged when they
 * are at most `coreReach` apart) and `docs-edit` (documentation is never needed by a fix). Lines
 * that carry no behaviour are not counted: blank lines, lone braces or `else`, imports, and a line
 * rewritten in place with only its indentation or its place in an if-chain changed (`if` → `} else
 * if`). Tests, configs and junk have detectors of their own. With no clean peer there is nothing to
 * compare with, so nothing is excess.
 */
export function excessEvidence(
  view: CandidateView,
  cleanPeers: readonly CandidateView[],
  excluded: ReadonlySet<ChangedLine>,
  options: ResolvedStaticOptions,
): Evidence[] {
  const evidence: Evidence[] = [];
  const peers = cleanPeers.filter((p) => p.id !== view.id).map(indexOf);
  for (const file of view.files) {
    if (file.role === "docs") {
      const lines = file.changes.filter((c) => c.norm !== "").length;
      if (lines > 0) evidence.push(docsEdit(file, lines));
      continue;
    }
    if (file.role !== "source" || peers.length === 0) continue;
    const judged = countedChanges(file).filter((c) => !excluded.has(c));
    if (judged.length === 0) continue;
    const peerFiles = peers.map((p) => p.get(file.key));
    const leaveAlone = peerFiles.filter((f) => f === undefined).length;
    if (leaveAlone > 0) {
      evidence.push(extraFile(file, judged, leaveAlone, peers.length));
      continue;
    }
    const outside = judged.filter((c) => !peerFiles.every((f) => shares(f!, c, options.coreReach)));
    for (const block of blocksOf(outside, options.coreReach)) evidence.push(outsideCore(file, block));
  }
  return evidence;
}

/** Minimum length (whitespace removed) for a line to count as "the same line" by content alone. */
const CONTENT_MATCH_MIN = 8;

/** What one candidate changes in one file, indexed for `shares`. */
interface FileIndex {
  /** Anchors of counted changes, ascending. */
  anchors: number[];
  /** Joints (see `joint`) of counted changes long enough to match by content, per kind. */
  norms: Record<ChangedLine["kind"], Set<string>>;
  /**
   * Skeleton (identifiers blanked) → identifier lists of counted changes with that skeleton; built
   * on the first line that neither position nor content matches (most never get that far).
   */
  shapes: () => Map<string, string[][]>;
}

const indexes = new WeakMap<CandidateView, Map<string, FileIndex>>();

/** File key → index, computed once per candidate view. */
function indexOf(view: CandidateView): Map<string, FileIndex> {
  let index = indexes.get(view);
  if (index) return index;
  index = new Map();
  for (const file of view.files) {
    if (file.role !== "source") continue;
    const counted = countedChanges(file);
    let shapes: Map<string, string[][]> | undefined;
    const entry: FileIndex = {
      anchors: [],
      norms: { add: new Set(), del: new Set() },
      shapes: () => {
        if (shapes) return shapes;
        shapes = new Map();
        for (const c of counted) {
          if (c.norm.length < CONTENT_MATCH_MIN) continue;
          const { skeleton, identifiers } = shapeOf(c);
          const same = shapes.get(skeleton);
          if (same) same.push(identifiers);
          else shapes.set(skeleton, [identifiers]);
        }
        return shapes;
      },
    };
    for (const c of counted) {
      entry.anchors.push(c.anchor);
      if (c.norm.length >= CONTENT_MATCH_MIN) entry.norms[c.kind].add(joint(c));
    }
    entry.anchors.sort((a, b) => a - b);
    // A file whose changes are all uncounted (imports, blank lines) still counts as touched.
    index.set(file.key, entry);
  }
  indexes.set(view, index);
  return index;
}

/** Whether a peer's changes to the same file cover `line` (see the module comment). */
function shares(peer: FileIndex, line: ChangedLine, reach: number): boolean {
  if (nearestDistance(peer.anchors, line.anchor) <= reach) return true;
  if (line.norm.length < CONTENT_MATCH_MIN) return false;
  if (peer.norms[line.kind].has(joint(line))) return true;
  const { skeleton, identifiers } = shapeOf(line);
  return (peer.shapes().get(skeleton) ?? []).some((other) => mostlySame(identifiers, other));
}

function nearestDistance(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  const above = lo < sorted.length ? sorted[lo]! - x : Number.POSITIVE_INFINITY;
  const below = lo > 0 ? x - sorted[lo - 1]! : Number.POSITIVE_INFINITY;
  return Math.min(above, below);
}

/** The same line with at most half its identifiers renamed (`keyType` → `elementType`). */
function mostlySame(a: string[], b: string[]): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same * 2 >= a.length;
}

const shapes = new WeakMap<ChangedLine, { skeleton: string; identifiers: string[] }>();

/** The line with identifiers blanked (its skeleton), and the identifiers in order. */
function shapeOf(line: ChangedLine): { skeleton: string; identifiers: string[] } {
  let shape = shapes.get(line);
  if (!shape) {
    const text = joint(line);
    shape = {
      skeleton: `${line.kind}\u0000${text.replace(IDENTIFIER, "\u00a7")}`,
      identifiers: text.match(IDENTIFIER) ?? [],
    };
    shapes.set(line, shape);
  }
  return shape;
}

const STRUCTURE_ONLY = /^[{}()[\];,]*(else|try|finally|do|end)?[{}()[\];,:]*$/;
const IMPORT =
  /^\s*(import\s|from\s+[\w.]+\s+import\s|(const|let|var)\s+[\w{}, ]+=\s*require\(|#include\s|use\s+[\w:]+;|using\s+[\w.]+;|require\s+['"])/;

const counted = new WeakMap<FileView, ChangedLine[]>();

/**
 * The file's changes that carry behaviour (see the module comment). A deleted line and an added line
 * of the same run that say the same thing once indentation and if-chain joints (`}`, `else`, `elif`)
 * are ignored are one line moved or re-chained, not two changes.
 */
export function countedChanges(file: FileView): ChangedLine[] {
  let out = counted.get(file);
  if (out) return out;
  const neutral = new Set<ChangedLine>();
  let index = 0;
  for (const hunk of file.hunks) {
    let run: ChangedLine[] = [];
    const flush = () => {
      const dels = new Map<string, ChangedLine[]>();
      for (const c of run) {
        if (c.kind !== "del") continue;
        const same = dels.get(joint(c));
        if (same) same.push(c);
        else dels.set(joint(c), [c]);
      }
      for (const c of run) {
        if (c.kind !== "add") continue;
        const match = dels.get(joint(c))?.shift();
        if (match) neutral.add(match).add(c);
      }
      run = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === "context") flush();
      else run.push(file.changes[index++]!);
    }
    flush();
  }
  out = file.changes.filter(
    (c) => c.norm !== "" && !neutral.has(c) && !STRUCTURE_ONLY.test(c.norm) && !IMPORT.test(c.text),
  );
  counted.set(file, out);
  return out;
}

const joints = new WeakMap<ChangedLine, string>();

/** A line's text with leading if-chain joints removed: `}else if(x){` and `if(x){` agree. */
function joint(line: ChangedLine): string {
  // Only a line opening with a closer or `e…` can carry a joint; the rest are their own text.
  const first = line.norm[0];
  if (first !== "}" && first !== ")" && first !== "]" && first !== "e") return line.norm;
  let text = joints.get(line);
  if (text === undefined) {
    text = line.norm.replace(/^[})\]]*(else)?/, "").replace(/^elif\b/, "if");
    joints.set(line, text);
  }
  return text;
}

/** Lines in old-file order, cut into blocks wherever two neighbours are more than `reach` apart. */
function blocksOf(lines: ChangedLine[], reach: number): ChangedLine[][] {
  const sorted = [...lines].sort((a, b) => a.anchor - b.anchor || a.newLine - b.newLine);
  const blocks: ChangedLine[][] = [];
  for (const line of sorted) {
    const block = blocks.at(-1);
    if (block && line.anchor - block.at(-1)!.anchor <= reach) block.push(line);
    else blocks.push([line]);
  }
  return blocks.map((b) => b.sort((x, y) => x.newLine - y.newLine));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function extraFile(file: FileView, judged: ChangedLine[], leaveAlone: number, peers: number): Evidence {
  const others =
    leaveAlone === peers
      ? "no other passing candidate changes it"
      : `${leaveAlone} of ${peers} other passing candidates leave it alone`;
  return {
    kind: "extra-file",
    file: file.path,
    line: judged[0]!.newLine,
    lines: judged.length,
    message: `${plural(judged.length, "changed line")} in ${file.path}, which a sufficient fix does not need (${others}); drop it unless the fix needs it`,
  };
}

function outsideCore(file: FileView, block: ChangedLine[]): Evidence {
  const first = block[0]!;
  const last = block.at(-1)!;
  const span =
    first.newLine === last.newLine ? `line ${first.newLine}` : `lines ${first.newLine}–${last.newLine}`;
  return {
    kind: "outside-consensus",
    file: file.path,
    line: first.newLine,
    lines: block.length,
    message: `${plural(block.length, "changed line")} at ${span} beyond the group's common core (what every passing fix changes); check they are needed for the fix`,
  };
}

function docsEdit(file: FileView, lines: number): Evidence {
  return {
    kind: "docs-edit",
    file: file.path,
    line: file.changes[0]?.newLine,
    lines,
    message: `${plural(lines, "line")} of documentation changed in ${file.path}; the fix does not need it`,
  };
}
