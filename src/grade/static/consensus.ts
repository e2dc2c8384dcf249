import type { CandidateView, ChangedLine, FileView } from "./candidate-view.ts";
import type { ResolvedStaticOptions } from "./defaults.ts";
import type { Evidence } from "./evidence.ts";

/**
 * The group's consensus region and what each candidate changes beyond it.
 *
 * All passing candidates fix the same failure from the same base commit, so the necessary change is
 * roughly what they agree on. A changed line is *supported* when at least one other passing candidate
 * changes the same file within `consensusPad` lines of it (old-file coordinates), or adds/deletes the
 * same non-trivial line anywhere in that file (the same fix placed a few lines apart). Unsupported
 * lines are the first suspects for unnecessary change:
 * - a file no other candidate touches is an `extra-file` (all its lines count);
 * - elsewhere, unsupported lines are grouped into blocks and reported as `outside-consensus`,
 *   except short runs of glue next to the candidate's own supported change.
 * Only source and docs files are judged here; tests, configs and junk have kinds of their own. Lines
 * that carry no behaviour of their own are not counted: blank lines, lone braces/`else`, and imports
 * (which only serve the code that uses them, wherever the file keeps its imports).
 * With a single readable candidate there is nothing to agree with, so nothing is reported.
 */
export function scopeEvidence(
  view: CandidateView,
  others: readonly CandidateView[],
  excluded: ReadonlySet<ChangedLine>,
  options: ResolvedStaticOptions,
): Evidence[] {
  if (others.length === 0) return [];
  const evidence: Evidence[] = [];
  const otherPaths = new Set(others.flatMap((o) => o.files.map((f) => f.path)));
  for (const file of view.files) {
    if (file.role !== "source" && file.role !== "docs") continue;
    const judged = file.changes.filter((c) => !excluded.has(c) && counts(c));
    if (judged.length === 0) continue;
    if (!otherPaths.has(file.path)) {
      evidence.push({
        kind: "extra-file",
        file: file.path,
        line: judged[0]!.newLine,
        lines: judged.length,
        message: `only this candidate changes ${file.path} (${judged.length} line${judged.length === 1 ? "" : "s"}); drop it unless the fix needs it`,
      });
      continue;
    }
    const peers = others.flatMap((o) => o.files.filter((f) => f.key === file.key));
    const supported = judged.map((c) => peers.some((peer) => supports(peer, c, options.consensusPad)));
    for (const block of unsupportedBlocks(judged, supported, options)) {
      const first = block[0]!;
      const last = block.at(-1)!;
      const span =
        first.newLine === last.newLine ? `line ${first.newLine}` : `lines ${first.newLine}–${last.newLine}`;
      evidence.push({
        kind: "outside-consensus",
        file: file.path,
        line: first.newLine,
        lines: block.length,
        message: `${block.length} changed line${block.length === 1 ? "" : "s"} at ${span} that no other passing candidate changes; check they are needed for the fix`,
      });
    }
  }
  return evidence;
}

const STRUCTURE_ONLY = /^[{}()[\];,]*(else|try|finally|do|end)?[{}()[\];,:]*$/;
const IMPORT =
  /^\s*(import\s|from\s+[\w.]+\s+import\s|(const|let|var)\s+[\w{}, ]+=\s*require\(|#include\s|use\s+[\w:]+;|using\s+[\w.]+;|require\s+['"])/;

/** Whether a changed line counts towards scope: it must carry behaviour (see the module comment). */
function counts(line: ChangedLine): boolean {
  return line.norm !== "" && !STRUCTURE_ONLY.test(line.norm) && !IMPORT.test(line.text);
}

/** Minimum length (whitespace removed) for a line to count as "the same line" by content alone. */
const CONTENT_MATCH_MIN = 8;

function supports(peer: FileView, line: ChangedLine, pad: number): boolean {
  for (const c of peer.changes) {
    if (!counts(c)) continue;
    if (Math.abs(c.anchor - line.anchor) <= pad) return true;
    if (c.kind === line.kind && c.norm === line.norm && line.norm.length >= CONTENT_MATCH_MIN) return true;
  }
  return false;
}

/**
 * Unsupported lines as blocks (gaps of at most `consensusPad` merge), after dropping glue: runs of at
 * most `glueLines` adjacent lines within `glueDistance` of a supported line of the same candidate.
 */
function unsupportedBlocks(
  lines: ChangedLine[],
  supported: boolean[],
  options: ResolvedStaticOptions,
): ChangedLine[][] {
  const order = lines.map((_, i) => i).sort((a, b) => lines[a]!.anchor - lines[b]!.anchor || a - b);
  const supportedAnchors = order.filter((i) => supported[i]).map((i) => lines[i]!.anchor);
  const runs: ChangedLine[][] = [];
  for (const i of order) {
    if (supported[i]) continue;
    const line = lines[i]!;
    const run = runs.at(-1);
    if (run && line.anchor - run.at(-1)!.anchor <= 1) run.push(line);
    else runs.push([line]);
  }
  const kept = runs.filter((run) => {
    if (run.length > options.glueLines) return true;
    const lo = run[0]!.anchor - options.glueDistance;
    const hi = run.at(-1)!.anchor + options.glueDistance;
    return !supportedAnchors.some((a) => a >= lo && a <= hi);
  });
  const blocks: ChangedLine[][] = [];
  for (const run of kept) {
    const block = blocks.at(-1);
    if (block && run[0]!.anchor - block.at(-1)!.anchor <= options.consensusPad) block.push(...run);
    else blocks.push([...run]);
  }
  return blocks.map((b) => b.sort((x, y) => x.newLine - y.newLine));
}
