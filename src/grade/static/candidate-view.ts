import { DiffParseError, type FileDiff, filePath, type Hunk, parseDiff } from "../../diff/parse.ts";
import { type LanguageId, languageOf } from "./languages.ts";
import { type PathRole, pathRole } from "./paths.ts";

/**
 * One candidate's patch as the detectors see it: files with a role and a language, and every added
 * or deleted line placed in the *old* file's coordinates, so that changes of different candidates
 * (all made against the same base commit) can be compared by position.
 */

export interface ChangedLine {
  kind: "add" | "del";
  text: string;
  /** Whitespace removed: the line's identity for content matching and churn detection. */
  norm: string;
  /** Old-file line this change sits at: a deletion's own line, an addition's next old line. */
  anchor: number;
  /** New-file line: an addition's own line, a deletion's next new line (where a reader finds the gap). */
  newLine: number;
  /** Index of the hunk the line belongs to. */
  hunk: number;
}

export interface FileView {
  /** The path a reader looks for: the new path, or the old one for a deletion. */
  path: string;
  /** Where positions are comparable between candidates: the old path, or `+path` for a new file. */
  key: string;
  status: FileDiff["status"];
  binary: boolean;
  role: PathRole;
  language: LanguageId | null;
  hunks: Hunk[];
  changes: ChangedLine[];
}

export interface CandidateView {
  id: string;
  files: FileView[];
  /** Set when the patch could not be read as a diff; the candidate is then graded neutrally. */
  unreadable?: string;
}

export function viewCandidate(id: string, rawPatch: string): CandidateView {
  // Patches that went through a Windows tool arrive with CRLF; line content is all the grader needs.
  const patch = rawPatch.includes("\r\n") ? rawPatch.replace(/\r\n/g, "\n") : rawPatch;
  let diffs: FileDiff[];
  try {
    diffs = parseTolerant(patch);
  } catch (e) {
    const reason = e instanceof DiffParseError ? e.message : String(e);
    return { id, files: [], unreadable: reason };
  }
  if (diffs.length === 0 && patch.trim() !== "") {
    return { id, files: [], unreadable: "no 'diff --git' header found: the patch is not a git diff" };
  }
  return { id, files: diffs.map(viewFile) };
}

/**
 * parseDiff is strict because the patch gate must be; the grader only reads, so it also accepts what
 * agents commonly emit and `git apply` tolerates: blank lines between file sections, and plain
 * `diff -u` output without `diff --git` headers.
 */
function parseTolerant(patch: string): FileDiff[] {
  try {
    return parseDiff(patch);
  } catch (e) {
    if (!(e instanceof DiffParseError)) throw e;
    const headed = /^diff --git /m.test(patch) ? patch : addGitHeaders(patch);
    return splitSections(headed).flatMap(parseSection);
  }
}

/** A section as-is, else without the blank lines some tools leave after a file's last hunk. */
function parseSection(section: string): FileDiff[] {
  try {
    return parseDiff(section);
  } catch (e) {
    const trimmed = section.replace(/\n\s*$/, "\n");
    if (trimmed === section) throw e;
    return parseDiff(trimmed);
  }
}

function splitSections(patch: string): string[] {
  const sections: string[] = [];
  let current: string[] = [];
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ") && current.length) {
      sections.push(current.join("\n"));
      current = [];
    }
    current.push(line);
  }
  if (current.length) sections.push(current.join("\n"));
  return sections;
}

function addGitHeaders(patch: string): string {
  const lines = patch.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    if (line.startsWith("--- ") && next?.startsWith("+++ ")) {
      const side = (raw: string) => {
        const path = raw.slice(4).replace(/\t.*$/, "").trim();
        return path === "/dev/null" ? null : path.replace(/^[ab]\//, "");
      };
      const oldPath = side(line);
      const newPath = side(next);
      const path = newPath ?? oldPath ?? "unknown";
      out.push(`diff --git a/${oldPath ?? path} b/${newPath ?? path}`);
      if (oldPath === null) out.push("new file mode 100644");
      if (newPath === null) out.push("deleted file mode 100644");
    }
    out.push(line);
  }
  return out.join("\n");
}

function viewFile(diff: FileDiff): FileView {
  const path = filePath(diff);
  const changes = changedLines(diff.hunks);
  const key = diff.oldPath === null ? `+${path}` : diff.oldPath;
  return {
    path,
    key,
    status: diff.status,
    binary: diff.binary,
    role: pathRole({ path, added: diff.status === "added", changedText: changes.map((c) => c.text) }),
    language: languageOf(path),
    hunks: diff.hunks,
    changes,
  };
}

function changedLines(hunks: Hunk[]): ChangedLine[] {
  const out: ChangedLine[] = [];
  hunks.forEach((hunk, h) => {
    // An insertion-only hunk `-n,0` inserts after old line n.
    let oldNext = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
    let newNext = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
    for (const line of hunk.lines) {
      if (line.kind === "context") {
        oldNext = line.oldLine! + 1;
        newNext = line.newLine! + 1;
      } else if (line.kind === "del") {
        out.push({
          kind: "del",
          text: line.text,
          norm: normalize(line.text),
          anchor: line.oldLine!,
          newLine: newNext,
          hunk: h,
        });
        oldNext = line.oldLine! + 1;
      } else {
        out.push({
          kind: "add",
          text: line.text,
          norm: normalize(line.text),
          anchor: oldNext,
          newLine: line.newLine!,
          hunk: h,
        });
        newNext = line.newLine! + 1;
      }
    }
  });
  return out;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, "");
}

/** Lines a reader of the new file sees in this file's hunks: context and additions, in order. */
export function newSideLines(
  file: FileView,
): { text: string; newLine: number; added: boolean; hunk: number }[] {
  const out: { text: string; newLine: number; added: boolean; hunk: number }[] = [];
  file.hunks.forEach((hunk, h) => {
    for (const line of hunk.lines) {
      if (line.kind !== "del")
        out.push({ text: line.text, newLine: line.newLine!, added: line.kind === "add", hunk: h });
    }
  });
  return out;
}
