/**
 * A strict parser for unified diffs as `git apply` reads them: `git diff` output with `diff --git`
 * headers, and plain `diff -u` output (`--- `/`+++ ` headers).
 *
 * Used by the patch gate (which must see every path and mode a patch would create, so it never
 * guesses) and by the graders. Paths are unquoted from git's C-style quoting and returned without
 * their first component (`a/`, `b/`: git's -p1); `/dev/null` sides are `null`.
 */

export type DiffLineKind = "add" | "del" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** 1-based line in the old file (context and deletions). */
  oldLine?: number;
  /** 1-based line in the new file (context and additions). */
  newLine?: number;
  /** Followed by "\\ No newline at end of file": the line has no newline in its file. */
  noNewline?: boolean;
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

/** A file's diff and the lines of the patch it spans (0-based, end exclusive; trailing free text included). */
export interface DiffSection {
  file: FileDiff;
  start: number;
  end: number;
}

export function parseDiff(patch: string): FileDiff[] {
  return parseDiffSections(patch).map((s) => s.file);
}

/**
 * Finds file diffs where `git apply` finds them: a `diff --git` header, or a traditional `--- ` line
 * followed by `+++ ` and a hunk header (plain `diff -u` output). Text before, between and after them is
 * free text, as for git (a commit message, a stray blank line after a hunk's last context line), except
 * a hunk header outside any file, which git refuses too.
 */
export function parseDiffSections(patch: string): DiffSection[] {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const sections: DiffSection[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    let parsed: [FileDiff, number] | undefined;
    if (line.startsWith("diff --git ")) parsed = parseFile(lines, i);
    else if (isTraditionalHeader(lines, i)) parsed = parseTraditional(lines, i);
    else if (HUNK_HEADER.test(line)) throw new DiffParseError(i + 1, "hunk without a file header before it");
    if (!parsed) {
      i++;
      continue;
    }
    const [file, next] = parsed;
    const previous = sections.at(-1);
    if (previous) previous.end = i;
    sections.push({ file, start: i, end: lines.length });
    i = next;
  }
  return sections;
}

function isTraditionalHeader(lines: string[], i: number): boolean {
  return (
    lines[i]!.startsWith("--- ") &&
    (lines[i + 1]?.startsWith("+++ ") ?? false) &&
    HUNK_HEADER.test(lines[i + 2] ?? "")
  );
}

/**
 * A plain unified diff (`diff -u`, many agents): names from the `---`/`+++` lines as git reads them.
 * The leading path component is stripped (git's -p1) unless neither name has one; a timestamp after a
 * tab (or an ISO date after spaces) is not part of the name; the file changed is the `+++` name; a
 * 1970-01-01 timestamp or /dev/null marks a created or deleted file.
 */
function parseTraditional(lines: string[], start: number): [FileDiff, number] {
  const first = lines[start]!.slice(4);
  const second = lines[start + 1]!.slice(4);
  const oldRaw = isDevNull(first) ? null : traditionalName(first);
  const newRaw = isDevNull(second) ? null : traditionalName(second);
  const strip = [oldRaw, newRaw].every((n) => n === null || !n.includes("/")) ? 0 : 1;
  const oldName = oldRaw === null ? null : stripComponents(oldRaw, strip);
  const newName = newRaw === null ? null : (stripComponents(newRaw, strip) ?? oldName);
  const file: FileDiff = { oldPath: null, newPath: null, status: "modified", binary: false, hunks: [] };
  if (oldRaw === null || EPOCH.test(first)) {
    file.status = "added";
    file.newPath = newName ?? oldName;
  } else if (newRaw === null || EPOCH.test(second)) {
    file.status = "deleted";
    file.oldPath = oldName;
  } else {
    file.oldPath = file.newPath = newName;
  }
  if (file.oldPath === null && file.newPath === null)
    throw new DiffParseError(start + 1, "cannot read a file name from the ---/+++ lines");
  let i = start + 2;
  while (i < lines.length && lines[i]!.startsWith("@@ ")) {
    const [hunk, next] = parseHunk(lines, i);
    file.hunks.push(hunk);
    i = next;
  }
  return [file, i];
}

const EPOCH = /[\t ](1970-01-01|1969-12-31) \d\d:\d\d:\d\d/;
const ISO_STAMP = / +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?( [+-]\d\d:?\d\d)?$/;

function isDevNull(raw: string): boolean {
  return /^\/dev\/null(\s|$)/.test(raw);
}

function traditionalName(raw: string): string {
  if (raw.startsWith('"')) {
    const end = closingQuote(raw, 0);
    if (end > 0) return unquote(raw.slice(0, end + 1));
  }
  const tab = raw.indexOf("\t");
  return tab >= 0 ? raw.slice(0, tab) : raw.replace(ISO_STAMP, "");
}

/** `path` without its first `n` components (git's -pN), or null when it has fewer. */
function stripComponents(path: string, n: number): string | null {
  let rest = path;
  for (let k = 0; k < n; k++) {
    const slash = rest.indexOf("/");
    if (slash <= 0) return null;
    rest = rest.slice(slash + 1);
  }
  return rest;
}

/**
 * A `diff --git` file diff. Names lose their first component, whatever it is (`a/`, `b/`, or any other
 * prefix: git's -p1); `---`/`+++` lines must agree with the header, as git requires.
 */
function parseFile(lines: string[], start: number): [FileDiff, number] {
  const header = lines[start]!;
  const headerPaths = splitGitHeader(header.slice("diff --git ".length));
  if (!headerPaths) throw new DiffParseError(start + 1, `cannot read paths from '${header}'`);
  const file: FileDiff = {
    oldPath: stripComponents(headerPaths[0], 1),
    newPath: stripComponents(headerPaths[1], 1),
    status: "modified",
    binary: false,
    hunks: [],
  };
  const named = { old: file.oldPath, new: file.newPath };
  const side = (raw: string, which: "old" | "new", at: number): string | null => {
    const path = sidePath(raw);
    if (path !== null && named[which] !== null && path !== named[which])
      throw new DiffParseError(at + 1, `${which} file name differs from the diff --git header`);
    return path;
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
    else if (line.startsWith("--- ")) file.oldPath = side(line.slice(4), "old", i) ?? file.oldPath;
    else if (line.startsWith("+++ ")) file.newPath = side(line.slice(4), "new", i) ?? file.newPath;
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
  if (file.oldPath === null && file.newPath === null)
    throw new DiffParseError(start + 1, "the diff --git header names no file");
  while (i < lines.length && lines[i]!.startsWith("@@ ")) {
    const [hunk, next] = parseHunk(lines, i);
    file.hunks.push(hunk);
    i = next;
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
      markNoNewline(hunk);
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
  while (i < lines.length && lines[i]!.startsWith("\\")) {
    markNoNewline(hunk);
    i++;
  }
  return [hunk, i];
}

/** "\\ No newline at end of file" after a hunk line. */
function markNoNewline(hunk: Hunk): void {
  const last = hunk.lines.at(-1);
  if (last) last.noNewline = true;
}

function sidePath(raw: string): string | null {
  const path = unquote(raw.replace(/\t.*$/, ""));
  return path === "/dev/null" ? null : stripComponents(path, 1);
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
