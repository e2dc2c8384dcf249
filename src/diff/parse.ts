/**
 * A strict parser for `git diff` output (unified diffs with `diff --git` headers).
 *
 * Used by the patch gate (which must see every path and mode a patch would create, so it never
 * guesses) and by the graders. Paths are unquoted from git's C-style quoting and returned without
 * the `a/` / `b/` prefixes; `/dev/null` sides are `null`.
 */

export type DiffLineKind = "add" | "del" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** 1-based line in the old file (context and deletions). */
  oldLine?: number;
  /** 1-based line in the new file (context and additions). */
  newLine?: number;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  header: string;
  lines: DiffLine[];
}

export type FileStatus = "added" | "deleted" | "modified" | "renamed" | "copied";

export interface FileDiff {
  /** Path before the change; null for an added file. */
  oldPath: string | null;
  /** Path after the change; null for a deleted file. */
  newPath: string | null;
  status: FileStatus;
  oldMode?: string;
  newMode?: string;
  /** True for `GIT binary patch` or `Binary files … differ`. */
  binary: boolean;
  hunks: Hunk[];
}

export class DiffParseError extends Error {
  override readonly name = "DiffParseError";
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`patch line ${line}: ${message}`);
  }
}

/** The path a file diff is about: the new path, or the old one for a deletion. */
export function filePath(file: FileDiff): string {
  return (file.newPath ?? file.oldPath)!;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

export function parseDiff(patch: string): FileDiff[] {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const files: FileDiff[] = [];
  let i = 0;
  // Free text before the first header (a commit message, say) is allowed, as git apply allows it.
  while (i < lines.length && !lines[i]!.startsWith("diff --git ")) {
    if (lines[i]!.startsWith("--- ") || lines[i]!.startsWith("@@ ")) {
      throw new DiffParseError(
        i + 1,
        "unified diff without a 'diff --git' header; produce patches with git diff",
      );
    }
    i++;
  }
  while (i < lines.length) {
    const [file, next] = parseFile(lines, i);
    files.push(file);
    i = next;
  }
  return files;
}

function parseFile(lines: string[], start: number): [FileDiff, number] {
  const header = lines[start]!;
  const headerPaths = splitGitHeader(header.slice("diff --git ".length));
  if (!headerPaths) throw new DiffParseError(start + 1, `cannot read paths from '${header}'`);
  const file: FileDiff = {
    oldPath: stripPrefix(headerPaths[0], "a/"),
    newPath: stripPrefix(headerPaths[1], "b/"),
    status: "modified",
    binary: false,
    hunks: [],
  };
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("diff --git ") || line.startsWith("@@ ")) break;
    if (line.startsWith("new file mode ")) {
      file.status = "added";
      file.newMode = line.slice(14).trim();
    } else if (line.startsWith("deleted file mode ")) {
      file.status = "deleted";
      file.oldMode = line.slice(18).trim();
    } else if (line.startsWith("old mode ")) file.oldMode = line.slice(9).trim();
    else if (line.startsWith("new mode ")) file.newMode = line.slice(9).trim();
    else if (line.startsWith("index ")) {
      const mode = line.split(" ")[2];
      if (mode) file.oldMode = file.newMode = mode;
    } else if (line.startsWith("rename from ")) {
      file.status = "renamed";
      file.oldPath = unquote(line.slice(12));
    } else if (line.startsWith("rename to ")) file.newPath = unquote(line.slice(10));
    else if (line.startsWith("copy from ")) {
      file.status = "copied";
      file.oldPath = unquote(line.slice(10));
    } else if (line.startsWith("copy to ")) file.newPath = unquote(line.slice(8));
    else if (line.startsWith("--- ")) file.oldPath = sidePath(line.slice(4), "a/");
    else if (line.startsWith("+++ ")) file.newPath = sidePath(line.slice(4), "b/");
    else if (
      line.startsWith("GIT binary patch") ||
      (line.startsWith("Binary files ") && line.endsWith(" differ"))
    ) {
      file.binary = true;
    }
    // similarity index, dissimilarity index and binary payload lines carry nothing the gate needs.
  }
  if (file.status === "added") file.oldPath = null;
  if (file.status === "deleted") file.newPath = null;
  while (i < lines.length && lines[i]!.startsWith("@@ ")) {
    const [hunk, next] = parseHunk(lines, i);
    file.hunks.push(hunk);
    i = next;
  }
  if (i < lines.length && !lines[i]!.startsWith("diff --git ")) {
    throw new DiffParseError(i + 1, `unexpected line '${lines[i]!.slice(0, 60)}'`);
  }
  return [file, i];
}

function parseHunk(lines: string[], start: number): [Hunk, number] {
  const match = HUNK_HEADER.exec(lines[start]!);
  if (!match) throw new DiffParseError(start + 1, `malformed hunk header '${lines[start]}'`);
  const hunk: Hunk = {
    oldStart: Number(match[1]),
    oldLines: match[2] === undefined ? 1 : Number(match[2]),
    newStart: Number(match[3]),
    newLines: match[4] === undefined ? 1 : Number(match[4]),
    header: match[5]!.trim(),
    lines: [],
  };
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let i = start + 1;
  while (i < lines.length && (oldLeft > 0 || newLeft > 0)) {
    const line = lines[i]!;
    const tag = line[0];
    if (tag === "+") {
      hunk.lines.push({ kind: "add", text: line.slice(1), newLine: newLine++ });
      newLeft--;
    } else if (tag === "-") {
      hunk.lines.push({ kind: "del", text: line.slice(1), oldLine: oldLine++ });
      oldLeft--;
    } else if (tag === " " || line === "") {
      hunk.lines.push({ kind: "context", text: line.slice(1), oldLine: oldLine++, newLine: newLine++ });
      oldLeft--;
      newLeft--;
    } else if (tag === "\\") {
      // "\ No newline at end of file"
    } else {
      throw new DiffParseError(
        i + 1,
        `hunk ends early: expected ${oldLeft} old and ${newLeft} new lines more`,
      );
    }
    i++;
  }
  if (oldLeft < 0 || newLeft < 0) throw new DiffParseError(i, "hunk is longer than its header says");
  if (oldLeft > 0 || newLeft > 0) throw new DiffParseError(i, "patch ends inside a hunk");
  while (i < lines.length && lines[i]!.startsWith("\\")) i++;
  return [hunk, i];
}

function sidePath(raw: string, prefix: string): string | null {
  const path = unquote(raw.replace(/\t.*$/, ""));
  return path === "/dev/null" ? null : stripPrefix(path, prefix);
}

function stripPrefix(path: string, prefix: string): string {
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** Splits `a/x b/y` (either side possibly quoted) into its two paths. */
function splitGitHeader(rest: string): [string, string] | null {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest, 0);
    if (end < 0) return null;
    return [unquote(rest.slice(0, end + 1)), unquote(rest.slice(end + 2))];
  }
  if (rest.endsWith('"')) {
    const open = rest.lastIndexOf(' "');
    if (open < 0) return null;
    return [rest.slice(0, open), unquote(rest.slice(open + 1))];
  }
  // Unquoted on both sides: the two halves are equal in length when the path is unchanged.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === " " && rest.slice(2, half) === rest.slice(half + 3)) {
    return [rest.slice(0, half), rest.slice(half + 1)];
  }
  const split = rest.indexOf(" b/");
  return split < 0 ? null : [rest.slice(0, split), rest.slice(split + 1)];
}

function closingQuote(s: string, open: number): number {
  for (let i = open + 1; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };

/** Undoes git's C-style path quoting (octal escapes are UTF-8 bytes). */
export function unquote(raw: string): string {
  if (!(raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2)) return raw;
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      bytes.push(...Buffer.from(ch, "utf8"));
      continue;
    }
    const next = body[++i] ?? "";
    if (/[0-7]/.test(next)) {
      const oct = body.slice(i, i + 3);
      bytes.push(Number.parseInt(oct, 8));
      i += oct.length - 1;
    } else bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString("utf8");
}
