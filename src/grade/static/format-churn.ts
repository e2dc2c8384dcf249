import type { ChangedLine, FileView } from "./candidate-view.ts";

/**
 * Format-only rewrites: a run of deleted lines replaced by added lines that say the same thing once
 * whitespace, quote style and trailing `,`/`;` are ignored. Re-indenting code because it moved into a
 * new block is not churn (the run then also adds the block's own lines, so the texts differ).
 * Runs that only add or remove blank lines are ignored altogether: they cost a reader nothing.
 */
export interface ChurnBlock {
  newLine: number;
  /** Non-blank lines rewritten (the larger side of the run). */
  lines: number;
  changes: ChangedLine[];
}

export function formatChurn(file: FileView): ChurnBlock[] {
  const blocks: ChurnBlock[] = [];
  let index = 0;
  for (const hunk of file.hunks) {
    let run: ChangedLine[] = [];
    const flush = () => {
      const block = churnBlock(run);
      if (block) blocks.push(block);
      run = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === "context") flush();
      else run.push(file.changes[index++]!);
    }
    flush();
  }
  return blocks;
}

function churnBlock(run: ChangedLine[]): ChurnBlock | null {
  const dels = run.filter((c) => c.kind === "del" && c.norm !== "");
  const adds = run.filter((c) => c.kind === "add" && c.norm !== "");
  if (dels.length === 0 || adds.length === 0) return null;
  // formatKey only touches quotes, `;` and `,`: sides whose letters and digits differ in number
  // cannot match, and most runs are real edits.
  if (alphanumerics(dels) !== alphanumerics(adds)) return null;
  const same = (a: ChangedLine[], b: ChangedLine[]) => formatKey(a) === formatKey(b);
  if (!same(dels, adds)) return null;
  // Text must actually differ somewhere, or this is a delete-and-re-add of identical lines (a move).
  if (dels.map((c) => c.text).join("\n") === adds.map((c) => c.text).join("\n")) return null;
  return { newLine: adds[0]!.newLine, lines: Math.max(dels.length, adds.length), changes: run };
}

function formatKey(lines: ChangedLine[]): string {
  return lines
    .map((c) => c.norm.replace(/'/g, '"').replace(/;$/, ""))
    .join("")
    .replace(/,([)\]}]|$)/g, "$1");
}

function alphanumerics(lines: ChangedLine[]): number {
  let n = 0;
  for (const c of lines)
    for (let i = 0; i < c.norm.length; i++) {
      const code = c.norm.charCodeAt(i);
      if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) n++;
    }
  return n;
}
