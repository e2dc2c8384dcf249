import type { FileDiff, Hunk } from "./parse.ts";

/**
 * Writes file diffs back as one canonical `git diff`-style patch: `diff --git a/X b/Y` headers, modes,
 * renames, `---`/`+++` lines and hunks, with every path C-quoted where git would need it.
 *
 * The patch gate hands `git apply` this rendering of what it parsed, never the candidate's text: git
 * then applies exactly the files, paths and modes the gate checked, whatever forms the original used
 * (plain `diff -u` headers, stray text between files, prefixes other than `a/`/`b/`).
 */
export function formatDiff(files: readonly FileDiff[]): string {
  return files.map(formatFile).join("");
}

function formatFile(file: FileDiff): string {
  const oldName = file.oldPath ?? file.newPath!;
  const newName = file.newPath ?? file.oldPath!;
  const out = [`diff --git ${quotePath(`a/${oldName}`)} ${quotePath(`b/${newName}`)}`];
  if (file.status === "added") out.push(`new file mode ${file.newMode ?? "100644"}`);
  else if (file.status === "deleted") out.push(`deleted file mode ${file.oldMode ?? "100644"}`);
  else if (file.oldMode && file.newMode && file.oldMode !== file.newMode)
    out.push(`old mode ${file.oldMode}`, `new mode ${file.newMode}`);
  if (file.status === "renamed" || file.status === "copied") {
    const verb = file.status === "renamed" ? "rename" : "copy";
    out.push(`${verb} from ${quotePath(oldName)}`, `${verb} to ${quotePath(newName)}`);
  }
  if (file.hunks.length) {
    out.push(file.oldPath === null ? "--- /dev/null" : `--- ${quotePath(`a/${file.oldPath}`)}`);
    out.push(file.newPath === null ? "+++ /dev/null" : `+++ ${quotePath(`b/${file.newPath}`)}`);
    for (const hunk of file.hunks) out.push(...formatHunk(hunk));
  }
  return `${out.join("\n")}\n`;
}

const MARK = { add: "+", del: "-", context: " " } as const;

function formatHunk(hunk: Hunk): string[] {
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  const out = [hunk.header ? `${header} ${hunk.header}` : header];
  for (const line of hunk.lines) {
    out.push(MARK[line.kind] + line.text);
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

/** git's C-style quoting: plain when the name is printable ASCII without spaces, `"` or `\`; quoted otherwise. */
export function quotePath(path: string): string {
  if (SAFE.test(path)) return path;
  let quoted = '"';
  for (const byte of Buffer.from(path, "utf8")) {
    const escaped = ESCAPES[byte];
    if (escaped) quoted += `\\${escaped}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, "0")}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}
