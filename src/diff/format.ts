import type { FileDiff, Hunk } from "./parse.ts";

/**
 * Writes file diffs back as one canonical patch that `git apply` reads into exactly the records
 * parse.ts read: names, creation and deletion, modes, hunks, missing final newlines.
 *
 * The patch gate hands `git apply` this rendering of what it checked, never the candidate's text, so
 * git applies exactly the files, paths and modes the gate saw, whatever forms the original used. Most
 * records become `diff --git a/X b/Y` sections with `a/`/`b/` prefixes (git's default -p1). A plain diff
 * that creates, deletes or may create its file stays a plain `---`/`+++` section, because git takes
 * that file's mode, and for `createsIfAbsent` its very existence, from the tree: the rendering leaves
 * git the same decision at apply time. Names are always quoted in plain sections, so that no name is
 * read as a timestamp and no -p0 guess is triggered.
 */
export function formatDiff(files: readonly FileDiff[]): string {
  return files
    .map((f, i) => {
      const text = formatFile(renderedRecord(f));
      // git reads a `diff --git` header on to the first line it does not know: without hunks to end it,
      // a plain section's ---/+++ lines right after would be read as this header's.
      const next = files[i + 1];
      return !f.plain && !f.hunks.length && next?.plain ? `${text}\n` : text;
    })
    .join("");
}

/**
 * The record the rendering carries, which git reads back exactly: the file diff without the modes that
 * change nothing for a regular file. An old mode without a new one (`index … 100644`) only makes git
 * warn when the file's mode differs (the file keeps its own), an old mode on a created file or a new
 * one on a deleted file is never read. (Were the tree's file a symbolic link, git would refuse the
 * original for its "wrong type" and apply the rendering; the same change without that line is one git
 * accepts, so this gives a patch nothing it could not have had.)
 */
export function renderedRecord(file: FileDiff): FileDiff {
  const dropOld = file.oldMode !== undefined && file.status !== "deleted" && file.newMode === undefined;
  const dropOldOfNew = file.status === "added" && file.oldMode !== undefined;
  const dropNew = file.status === "deleted" && file.newMode !== undefined;
  if (!dropOld && !dropOldOfNew && !dropNew) return file;
  const { oldMode, newMode, ...rest } = file;
  const out: FileDiff = rest;
  if (oldMode !== undefined && !dropOld && !dropOldOfNew) out.oldMode = oldMode;
  if (newMode !== undefined && !dropNew) out.newMode = newMode;
  return out;
}

function formatFile(file: FileDiff): string {
  const out = file.plain ? plainHeader(file) : gitHeader(file);
  for (const hunk of file.hunks) out.push(...formatHunk(hunk));
  return `${out.join("\n")}\n`;
}

function plainHeader(file: FileDiff): string[] {
  const name = (file.newPath ?? file.oldPath)!;
  if (file.createsIfAbsent) return [`--- ${forceQuote(`a/${name}`)}`, `+++ ${forceQuote(`b/${name}`)}`];
  if (file.status === "added") return ["--- /dev/null", `+++ ${forceQuote(`b/${name}`)}`];
  return [`--- ${forceQuote(`a/${name}`)}`, "+++ /dev/null"];
}

function gitHeader(file: FileDiff): string[] {
  const oldName = file.oldPath ?? file.newPath!;
  const newName = file.newPath ?? file.oldPath!;
  // git reads one name off a `diff --git` line only when both sides are quoted alike.
  const quote = needsQuote(`a/${oldName}`) || needsQuote(`b/${newName}`) ? forceQuote : quotePath;
  const out = [`diff --git ${quote(`a/${oldName}`)} ${quote(`b/${newName}`)}`];
  if (file.oldMode !== undefined) out.push(`old mode ${file.oldMode}`);
  if (file.status === "added") out.push(`new file mode ${file.newMode ?? "100644"}`);
  else if (file.newMode !== undefined) out.push(`new mode ${file.newMode}`);
  if (file.status === "deleted") out.push(`deleted file mode ${file.oldMode ?? "100644"}`);
  if (file.status === "renamed" || file.status === "copied") {
    const verb = file.status === "renamed" ? "rename" : "copy";
    out.push(`${verb} from ${quotePath(oldName)}`, `${verb} to ${quotePath(newName)}`);
  }
  // A modification needs a line after `diff --git`, or git takes the section for free text.
  if (file.hunks.length || file.status === "modified") {
    out.push(file.oldPath === null ? "--- /dev/null" : `--- ${quotePath(`a/${file.oldPath}`)}`);
    out.push(file.newPath === null ? "+++ /dev/null" : `+++ ${quotePath(`b/${file.newPath}`)}`);
  }
  return out;
}

const MARK = { add: "+", del: "-", context: " " } as const;

function formatHunk(hunk: Hunk): string[] {
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  const out = [hunk.header ? `${header} ${hunk.header}` : header];
  for (const line of hunk.lines) {
    out.push(line.bare ? "" : MARK[line.kind] + line.text);
    if (line.noNewline) out.push("\\ No newline at end of file");
  }
  return out;
}

const SAFE = /^[\x21\x23-\x5b\x5d-\x7e]*$/;
const ESCAPES: Record<number, string> = {
  7: "a",
  8: "b",
  9: "t",
  10: "n",
  11: "v",
  12: "f",
  13: "r",
  34: '"',
  92: "\\",
};

function needsQuote(path: string): boolean {
  return !SAFE.test(path);
}

/** git's C-style quoting: plain when the name is printable ASCII without spaces, `"` or `\`; quoted otherwise. */
export function quotePath(path: string): string {
  return needsQuote(path) ? forceQuote(path) : path;
}

function forceQuote(path: string): string {
  let quoted = '"';
  for (const byte of Buffer.from(path, "utf8")) {
    const escaped = ESCAPES[byte];
    if (escaped) quoted += `\\${escaped}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, "0")}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}
