/** What a patch reads as (diff/parse.ts): file diffs, their hunks and lines, and the reader's refusal. */

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
  /** A context line written as an empty line (newer GNU diff) rather than a single space. */
  bare?: boolean;
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
  /** Octal mode a header line names for the old side ("old mode", "deleted file mode", "index … MODE"). */
  oldMode?: string;
  /** Octal mode a header line names for the new side ("new mode", "new file mode"). */
  newMode?: string;
  /** True for `GIT binary patch` or `Binary files … differ`. */
  binary: boolean;
  hunks: Hunk[];
  /**
   * Read from a plain `---`/`+++` header that creates or deletes its file, or may create it: git then
   * takes modes from the tree rather than from the header (a plain diff that only modifies is read
   * exactly like a `diff --git` one, so it does not carry this).
   */
  plain?: boolean;
  /** A plain diff whose one hunk has no old lines: git creates the file if it is missing, else modifies it. */
  createsIfAbsent?: boolean;
  /**
   * A header git accepts in a state its own diffs never have (a deletion that still names a new file);
   * its effect depends on accidents of git's reader, so the gate refuses it.
   */
  anomaly?: string;
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
