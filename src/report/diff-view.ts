import { DiffParseError, type FileDiff, filePath, parseDiff } from "../diff/parse.ts";
import { escapeHtml } from "./html.ts";

/** Lines added and removed by a patch, for the one-line summary of a collapsed diff. */
export interface DiffSummary {
  files: number;
  added: number;
  removed: number;
}

/**
 * A patch as a readable diff: per file a path header, then its hunks with old and new line numbers
 * and added/removed lines shaded. Rows carry `data-file`/`data-line` (path, new line) so the page
 * can mark the lines a finding points at. A patch that is not a `git diff` (the verifier rejected
 * it, or an agent produced something else) is shown as its raw text rather than dropped.
 */
export function renderDiff(patch: string): { html: string; summary: DiffSummary } {
  let files: FileDiff[];
  try {
    files = parseDiff(patch);
  } catch (e) {
    if (!(e instanceof DiffParseError)) throw e;
    return rawDiff(patch, e.message);
  }
  if (!files.length)
    return { html: `<p class="muted">empty patch</p>`, summary: { files: 0, added: 0, removed: 0 } };
  let added = 0;
  let removed = 0;
  const html = files
    .map((file) => {
      const path = filePath(file);
      const rows: string[] = [];
      if (file.binary) rows.push(`<tr class="hunk"><td colspan="3">binary change</td></tr>`);
      for (const hunk of file.hunks) {
        rows.push(
          `<tr class="hunk"><td class="ln"></td><td class="ln"></td><td class="code">${escapeHtml(
            `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${hunk.header ? ` ${hunk.header}` : ""}`,
          )}</td></tr>`,
        );
        for (const line of hunk.lines) {
          if (line.kind === "add") added++;
          if (line.kind === "del") removed++;
          const sign = line.kind === "add" ? "+" : line.kind === "del" ? "-" : " ";
          const at = line.newLine ?? line.oldLine;
          rows.push(
            `<tr class="${line.kind}" data-line="${at ?? ""}"><td class="ln">${line.oldLine ?? ""}</td>` +
              `<td class="ln">${line.newLine ?? ""}</td><td class="code">${escapeHtml(sign + line.text)}</td></tr>`,
          );
        }
      }
      return (
        `<div class="diff-file" data-file="${escapeHtml(path)}"><div class="path">${escapeHtml(describe(file))}</div>` +
        `<table>${rows.join("")}</table></div>`
      );
    })
    .join("");
  return { html, summary: { files: files.length, added, removed } };
}

function describe(file: FileDiff): string {
  if (file.status === "renamed" || file.status === "copied")
    return `${file.oldPath} → ${file.newPath} (${file.status})`;
  return file.status === "modified" ? filePath(file) : `${filePath(file)} (${file.status})`;
}

function rawDiff(patch: string, why: string): { html: string; summary: DiffSummary } {
  const lines = patch.split("\n");
  const added = lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
  const removed = lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length;
  const rows = lines
    .map((l) => {
      const kind = l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "context";
      return `<tr class="${kind}"><td class="code">${escapeHtml(l)}</td></tr>`;
    })
    .join("");
  return {
    html: `<div class="diff-file"><div class="path">not a git diff: ${escapeHtml(why)}</div><table>${rows}</table></div>`,
    summary: { files: 0, added, removed },
  };
}
