import type { Dirent } from "node:fs";
import { readFile as readBytes, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type FileDiff, filePath } from "../../diff/parse.ts";
import { displayPath, resolveInside } from "./candidate-trees.ts";
import { shown, type ToolContext, treeFor } from "./tool-context.ts";
import { ToolError } from "./tool-error.ts";

/**
 * list_files, read_file and search. With a repository they read the base tree or a candidate's
 * patched copy; without one they answer from the patches alone and say so, so the model knows why
 * it cannot see surrounding code.
 */

export const NO_REPOSITORY = "(no repository in this session: only the candidates' patches are available)";
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", ".tox", ".mypy_cache"]);
const MAX_LISTED = 300;
const MAX_READ_LINES = 500;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCHES = 100;

export async function listFiles(
  ctx: ToolContext,
  args: { path?: string; candidate?: string },
): Promise<string> {
  if (!ctx.trees.hasRepository) return changedFilesSummary(ctx, args.candidate);
  const root = await treeFor(ctx, args.candidate);
  const dir = await resolveInside(root, args.path);
  if ((await stat(dir)).isFile()) return displayPath(root, dir);
  const files: string[] = [];
  let total = 0;
  for await (const file of walk(dir)) {
    if (++total <= MAX_LISTED) files.push(displayPath(root, file));
  }
  if (total > MAX_LISTED)
    files.push(`… and ${total - MAX_LISTED} more files; list a subdirectory to see them`);
  return files.length ? files.join("\n") : "(no files)";
}

export async function readFile(
  ctx: ToolContext,
  args: { path: string; candidate?: string; start_line?: number; end_line?: number },
): Promise<string> {
  const text = ctx.trees.hasRepository ? await readTreeFile(ctx, args) : addedFileFromPatch(ctx, args);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (!lines.length) return `${args.path} (empty file)`;
  const start = args.start_line ?? 1;
  const end = Math.min(args.end_line ?? start + MAX_READ_LINES - 1, start + MAX_READ_LINES - 1, lines.length);
  if (start > Math.max(lines.length, 1))
    throw new ToolError(`start_line ${start} is past the end (${lines.length} lines)`);
  if (end < start) throw new ToolError("end_line is before start_line");
  const width = String(end).length;
  const body = lines.slice(start - 1, end).map((l, i) => `${String(start + i).padStart(width)}| ${l}`);
  const more = end < lines.length ? `; read on with start_line ${end + 1}` : "";
  return [`${args.path} (lines ${start}-${end} of ${lines.length}${more})`, ...body].join("\n");
}

export async function search(
  ctx: ToolContext,
  args: { pattern: string; path?: string; candidate?: string },
): Promise<string> {
  const { regex, literal } = compilePattern(args.pattern);
  const note = literal ? `(not a valid regular expression; searched for the literal text)\n` : "";
  const matches: string[] = [];
  let total = 0;
  const add = (where: string, text: string) => {
    if (++total <= MAX_MATCHES)
      matches.push(`${where}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  };
  if (!ctx.trees.hasRepository) {
    const labels = args.candidate === undefined ? ctx.labels : [shown(ctx, args.candidate).label];
    for (const label of labels) {
      for (const file of shown(ctx, label).files ?? []) {
        const path = filePath(file);
        if (args.path && !path.startsWith(args.path.replace(/^\.\//, ""))) continue;
        for (const line of file.hunks.flatMap((h) => h.lines)) {
          if (line.kind !== "del" && regex.test(line.text))
            add(`${label} ${path}:${line.newLine}`, line.text);
        }
      }
    }
    return `${NO_REPOSITORY}\n${note}${result(matches, total)}`;
  }
  const root = await treeFor(ctx, args.candidate);
  const start = await resolveInside(root, args.path);
  const files = (await stat(start)).isFile() ? [start] : walk(start);
  for await (const file of files) {
    const text = await readText(file).catch(() => undefined);
    if (text === undefined) continue;
    text.split("\n").forEach((line, i) => {
      if (regex.test(line)) add(`${displayPath(root, file)}:${i + 1}`, line);
    });
  }
  return note + result(matches, total);
}

function result(matches: string[], total: number): string {
  if (!total) return "no matches";
  return total > MAX_MATCHES
    ? `${matches.join("\n")}\n… ${total - MAX_MATCHES} more matches; narrow the path or pattern`
    : matches.join("\n");
}

function compilePattern(pattern: string): { regex: RegExp; literal: boolean } {
  try {
    return { regex: new RegExp(pattern), literal: false };
  } catch {
    return { regex: new RegExp(escapeRegExp(pattern)), literal: true };
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function readTreeFile(ctx: ToolContext, args: { path: string; candidate?: string }): Promise<string> {
  const root = await treeFor(ctx, args.candidate);
  const full = await resolveInside(root, args.path);
  if ((await stat(full)).isDirectory()) throw new ToolError(`${args.path} is a directory; use list_files`);
  const text = await readText(full);
  if (text === undefined)
    throw new ToolError(`${args.path} is binary or larger than ${MAX_FILE_BYTES} bytes`);
  return text;
}

/** A text file's content, or undefined for a binary or oversized one. */
async function readText(full: string): Promise<string | undefined> {
  const info = await stat(full);
  if (info.size > MAX_FILE_BYTES) return undefined;
  const bytes = await readBytes(full);
  if (bytes.subarray(0, 8000).includes(0)) return undefined;
  return bytes.toString("utf8");
}

/** Without a repository, only a file a candidate adds whole can be read, from its patch. */
function addedFileFromPatch(ctx: ToolContext, args: { path: string; candidate?: string }): string {
  const path = args.path.replace(/^\.\//, "");
  const file =
    args.candidate === undefined
      ? undefined
      : shown(ctx, args.candidate).files?.find((f) => filePath(f) === path);
  if (file?.status !== "added") {
    throw new ToolError(
      `${NO_REPOSITORY.slice(1, -1)}; use view_patch to see what a candidate changes in ${path}`,
    );
  }
  return `${file.hunks.flatMap((h) => h.lines.filter((l) => l.kind === "add").map((l) => l.text)).join("\n")}\n`;
}

function changedFilesSummary(ctx: ToolContext, candidate: string | undefined): string {
  const labels = candidate === undefined ? ctx.labels : [shown(ctx, candidate).label];
  const rows = labels.flatMap((label) => {
    const files = shown(ctx, label).files;
    if (!files) return [`${label}  (patch could not be parsed; use view_patch)`];
    return files.map((f) => `${label}  ${statusLetter(f)} ${filePath(f)} (${countLines(f)})`);
  });
  return [`${NO_REPOSITORY}\nFiles the candidates change:`, ...rows].join("\n");
}

/** One-letter git status of a file diff (A, D, M, R, C). */
export function statusLetter(file: FileDiff): string {
  return { added: "A", deleted: "D", modified: "M", renamed: "R", copied: "C" }[file.status];
}

/** `+added -deleted`, or `binary`. */
export function countLines(file: FileDiff): string {
  if (file.binary) return "binary";
  const lines = file.hunks.flatMap((h) => h.lines);
  return `+${lines.filter((l) => l.kind === "add").length} -${lines.filter((l) => l.kind === "del").length}`;
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* walk(full);
    } else if (entry.isFile()) yield full;
  }
}
