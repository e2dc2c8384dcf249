import { binaryPayloadLength } from "./git-binary.ts";
import { isDigit, isSpace, NL, PatchBytes, SPACE, safeNumber, strtoul, unquoteC } from "./git-bytes.ts";
import {
  cString,
  findName,
  findNameTraditional,
  gitHeaderName,
  guessPValue,
  hasEpochTimestamp,
  isDevNull,
  type Name,
  sameName,
  TERM_TAB,
} from "./git-names.ts";

/**
 * A unified-diff reader that is `git apply`'s own, ported from git's apply.c (the version Debian 12
 * ships, 2.39): the same file diffs found in the same places (`diff --git` headers, plain `---`/`+++`
 * headers followed by a hunk, free text anywhere else), the same names read from the same lines (the
 * -p1 default, and the 0 git guesses from a plain diff of top-level files for the rest of the patch),
 * the same hunks, and the same refusals: whatever git's reader refuses throws DiffParseError here,
 * with git's message. The patch gate relies on that (it renders what it read back for git, so it
 * must read what git reads); graders and reports use it to show what a patch changes.
 *
 * What is left to the tree at apply time is left open here too: a plain diff whose one hunk has no
 * old lines creates its file only when the file is missing (`createsIfAbsent`).
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

/** git's struct patch, as far as reading goes (apply.c). Modes: undefined until a header line names one. */
interface RawPatch {
  oldName: Name | null;
  newName: Name | null;
  defName: Name | null;
  /** 1, 0, or -1 when a plain diff leaves it to the hunks or the tree. */
  isNew: number;
  isDelete: number;
  isRename: boolean;
  isCopy: boolean;
  oldMode: number | undefined;
  newMode: number | undefined;
  isBinary: boolean;
  traditional: boolean;
  /** Where the first line that made this a creation, deletion, rename or copy is (-1: none yet). */
  extensionAt: number;
  hunks: Hunk[];
}

interface ReadState {
  b: PatchBytes;
  /** -p: components stripped from names; git guesses 0 once, from the first plain diff that allows it. */
  p: number;
  pKnown: boolean;
}

export function parseDiff(patch: string): FileDiff[] {
  const b = new PatchBytes(Buffer.from(patch, "utf8"));
  const state: ReadState = { b, p: 1, pKnown: false };
  const files: FileDiff[] = [];
  let offset = 0;
  while (offset < b.length) {
    const chunk = parseChunk(state, offset, b.length - offset);
    if (!chunk) break;
    // A binary section git gave up on is not among git's patches; it is kept (binary) for the gate to refuse.
    files.push(toFileDiff(chunk.patch, b, offset, !chunk.stop));
    if (chunk.stop) break;
    offset += chunk.used;
  }
  return files;
}

function lineAt(b: PatchBytes, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < b.length; i++) if (b.at(i) === NL) line++;
  return line;
}

function fail(state: ReadState, pos: number, message: string): never {
  throw new DiffParseError(lineAt(state.b, pos), message);
}

function freshPatch(): RawPatch {
  return {
    oldName: null,
    newName: null,
    defName: null,
    isNew: -1,
    isDelete: -1,
    isRename: false,
    isCopy: false,
    oldMode: undefined,
    newMode: undefined,
    isBinary: false,
    traditional: false,
    extensionAt: -1,
    hunks: [],
  };
}

/**
 * parse_chunk: the next file diff from `start` on (`used` bytes with the free text before it), or null
 * when there is none. `stop` is set where git stops reading (a binary payload it cannot read).
 */
function parseChunk(
  state: ReadState,
  start: number,
  size: number,
): { patch: RawPatch; used: number; stop?: boolean } | null {
  const { b } = state;
  const patch = freshPatch();
  const found = findHeader(state, start, size, patch);
  if (!found) return null;
  const hd = found.offset + found.hdrsize;
  let patchSize = parseSinglePatch(state, start + hd, size - hd, patch);
  if (!patchSize) {
    const llen = b.lineLen(start + hd, size - hd);
    if (llen === 17 && b.startsWith(start + hd, "GIT binary patch\n")) {
      patch.isBinary = true;
      const used = binaryPayloadLength(b, start + hd + llen, size - hd - llen);
      // git stops reading the patch at a payload it cannot read; the gate refuses binary patches anyway.
      if (used < 0) return { patch, used: size, stop: true };
      patchSize = used + llen;
    } else if (b.startsWith(start + hd + llen - 8, " differ\n")) {
      for (const prefix of ["Binary files ", "Files "]) {
        if (prefix.length < size - hd && b.startsWith(start + hd, prefix)) {
          patch.isBinary = true;
          patchSize = llen;
          break;
        }
      }
    }
    if (!patch.isBinary && !metadataChanges(patch))
      fail(state, start + hd, `patch with only garbage at line ${lineAt(b, start + hd)}`);
  }
  return { patch, used: hd + patchSize };
}

function metadataChanges(patch: RawPatch): boolean {
  return (
    patch.isRename ||
    patch.isCopy ||
    patch.isNew > 0 ||
    patch.isDelete !== 0 ||
    (!!patch.oldMode && !!patch.newMode && patch.oldMode !== patch.newMode)
  );
}

/**
 * find_header: skips free text up to the next file header and reads it into `patch`. A `diff --git`
 * line whose header is empty is free text too, but what git read from it stays in `patch` (as in git).
 */
function findHeader(
  state: ReadState,
  start: number,
  size: number,
  patch: RawPatch,
): { offset: number; hdrsize: number } | null {
  const { b } = state;
  let len = 0;
  for (let offset = 0, line = start; size > 0; offset += len, size -= len, line += len) {
    len = b.lineLen(line, size);
    if (!len) break;
    if (len < 6) continue;
    if (b.startsWith(line, "@@ -")) {
      if (!fragmentHeader(b, line, len)) continue;
      fail(
        state,
        line,
        `patch fragment without header at line ${lineAt(b, line)}: ${b.text(line, line + len - 1)}`,
      );
    }
    if (size < len + 6) break;
    if (b.startsWith(line, "diff --git ")) {
      const hdrsize = parseGitHeader(state, line, len, size, patch);
      if (hdrsize <= len) continue;
      return { offset, hdrsize };
    }
    if (!b.startsWith(line, "--- ") || !b.startsWith(line + len, "+++ ")) continue;
    const nextlen = b.lineLen(line + len, size - len);
    if (size < nextlen + 14 || !b.startsWith(line + len + nextlen, "@@ -")) continue;
    parseTraditional(state, line, line + len, patch);
    return { offset, hdrsize: len + nextlen };
  }
  return null;
}

/** parse_traditional_patch: names, creation and deletion from a `---`/`+++` pair. */
function parseTraditional(state: ReadState, firstLine: number, secondLine: number, patch: RawPatch): void {
  const { b } = state;
  const first = firstLine + 4;
  const second = secondLine + 4;
  patch.traditional = true;
  if (!state.pKnown) {
    let p = guessPValue(b, first);
    const q = guessPValue(b, second);
    if (p < 0) p = q;
    if (p >= 0 && p === q) {
      state.p = p;
      state.pKnown = true;
    }
  }
  let name: Name | null;
  if (isDevNull(b, first)) {
    patch.isNew = 1;
    patch.isDelete = 0;
    name = findNameTraditional(b, second, null, state.p);
    patch.newName = name;
  } else if (isDevNull(b, second)) {
    patch.isNew = 0;
    patch.isDelete = 1;
    name = findNameTraditional(b, first, null, state.p);
    patch.oldName = name;
  } else {
    const firstName = findNameTraditional(b, first, null, state.p);
    name = findNameTraditional(b, second, firstName, state.p);
    if (hasEpochTimestamp(b, first)) {
      patch.isNew = 1;
      patch.isDelete = 0;
      patch.newName = name;
    } else if (hasEpochTimestamp(b, second)) {
      patch.isNew = 0;
      patch.isDelete = 1;
      patch.oldName = name;
    } else {
      patch.oldName = name;
      patch.newName = name;
    }
  }
  if (!name) fail(state, firstLine, `unable to find filename in patch at line ${lineAt(b, firstLine)}`);
}

type HeaderOp = (state: ReadState, at: number, patch: RawPatch) => void;

const END_OF_HEADER: HeaderOp = () => {};

/** What each extended header line does, in git's order (the first whose prefix matches wins). */
const HEADER_OPS: [string, HeaderOp][] = [
  ["@@ -", END_OF_HEADER],
  ["--- ", (s, at, p) => verifyName(s, at, p, "old")],
  ["+++ ", (s, at, p) => verifyName(s, at, p, "new")],
  [
    "old mode ",
    (s, at, p) => {
      p.oldMode = modeAt(s, at);
    },
  ],
  [
    "new mode ",
    (s, at, p) => {
      p.newMode = modeAt(s, at);
    },
  ],
  ["deleted file mode ", deletedFile],
  ["new file mode ", newFile],
  ["copy from ", (s, at, p) => extendedName(s, at, p, "copy", "oldName")],
  ["copy to ", (s, at, p) => extendedName(s, at, p, "copy", "newName")],
  ["rename old ", (s, at, p) => extendedName(s, at, p, "rename", "oldName")],
  ["rename new ", (s, at, p) => extendedName(s, at, p, "rename", "newName")],
  ["rename from ", (s, at, p) => extendedName(s, at, p, "rename", "oldName")],
  ["rename to ", (s, at, p) => extendedName(s, at, p, "rename", "newName")],
  ["similarity index ", () => {}],
  ["dissimilarity index ", () => {}],
  ["index ", indexLine],
  ["", END_OF_HEADER],
];

/**
 * parse_git_diff_header: reads the extended header after a `diff --git` line up to the first line it
 * does not know (a hunk, free text); returns the header's length with the `diff --git` line.
 */
function parseGitHeader(state: ReadState, line: number, len: number, size: number, patch: RawPatch): number {
  const { b } = state;
  patch.isNew = 0;
  patch.isDelete = 0;
  patch.defName = gitHeaderName(b, state.p, line, len);
  let offset = len;
  let at = line + len;
  size -= len;
  for (let l = 0; size > 0; offset += l, size -= l, at += l) {
    l = b.lineLen(at, size);
    if (!l || b.at(at + l - 1) !== NL) break;
    const [prefix, op] = HEADER_OPS.find(([prefix]) => l >= prefix.length && b.startsWith(at, prefix))!;
    op(state, at + prefix.length, patch);
    checkHeaderLine(state, at, patch);
    if (op === END_OF_HEADER) break;
  }
  if (!patch.oldName && !patch.newName) {
    if (!patch.defName)
      fail(
        state,
        line,
        `git diff header lacks filename information when removing ${state.p} leading pathname component${state.p === 1 ? "" : "s"} (line ${lineAt(b, at)})`,
      );
    patch.oldName = patch.defName;
    patch.newName = patch.defName;
  }
  if ((!patch.newName && !patch.isDelete) || (!patch.oldName && !patch.isNew))
    fail(state, line, `git diff header lacks filename information (line ${lineAt(b, at)})`);
  return offset;
}

function checkHeaderLine(state: ReadState, at: number, patch: RawPatch): void {
  const extensions =
    Number(patch.isDelete === 1) + Number(patch.isNew === 1) + Number(patch.isRename) + Number(patch.isCopy);
  if (extensions > 1)
    fail(
      state,
      at,
      `inconsistent header lines ${lineAt(state.b, patch.extensionAt)} and ${lineAt(state.b, at)}`,
    );
  if (extensions && patch.extensionAt < 0) patch.extensionAt = at;
}

/** gitdiff_verify_name: a `---`/`+++` line sets the side's name, or must agree with it. */
function verifyName(state: ReadState, at: number, patch: RawPatch, side: "old" | "new"): void {
  const { b } = state;
  const isNull = side === "old" ? patch.isNew : patch.isDelete;
  const key = side === "old" ? "oldName" : "newName";
  const name = patch[key];
  if (!name && !isNull) {
    patch[key] = findName(b, at, null, state.p, TERM_TAB);
    return;
  }
  if (name) {
    if (isNull)
      fail(
        state,
        at,
        `git apply: bad git-diff - expected /dev/null, got ${show(name)} on line ${lineAt(b, at)}`,
      );
    const another = findName(b, at, null, state.p, TERM_TAB);
    if (!another || !sameName(another, name))
      fail(state, at, `git apply: bad git-diff - inconsistent ${side} filename on line ${lineAt(b, at)}`);
  } else if (!isDevNull(b, at)) {
    fail(state, at, `git apply: bad git-diff - expected /dev/null on line ${lineAt(b, at)}`);
  }
}

/** `rename`/`copy` lines: their names carry no a/ or b/ prefix, so one component fewer is stripped. */
function extendedName(
  state: ReadState,
  at: number,
  patch: RawPatch,
  kind: "rename" | "copy",
  side: "oldName" | "newName",
): void {
  if (kind === "rename") patch.isRename = true;
  else patch.isCopy = true;
  patch[side] = findName(state.b, at, null, state.p ? state.p - 1 : 0, 0);
}

function deletedFile(state: ReadState, at: number, patch: RawPatch): void {
  patch.isDelete = 1;
  patch.oldName = patch.defName;
  patch.oldMode = modeAt(state, at);
}

function newFile(state: ReadState, at: number, patch: RawPatch): void {
  patch.isNew = 1;
  patch.newName = patch.defName;
  patch.newMode = modeAt(state, at);
}

/** parse_mode_line: an octal number followed by white space, as C's strtoul and git's `unsigned int` read it. */
function modeAt(state: ReadState, at: number): number {
  const { value, end } = strtoul(state.b, at, 8);
  if (end === at || !isSpace(state.b.at(end))) {
    const eol = state.b.strchrnul(at, NL);
    fail(state, at, `invalid mode on line ${lineAt(state.b, at)}: ${state.b.text(at, eol)}`);
  }
  return Number(value & 0xffffffffn);
}

/** gitdiff_index: `index OLD..NEW [MODE]`; only the mode matters for applying to a work tree. */
function indexLine(state: ReadState, at: number, patch: RawPatch): void {
  const { b } = state;
  const hexsz = 40;
  const dot = b.strchr(at, 46);
  if (dot < 0 || b.at(dot + 1) !== 46 || hexsz < dot - at) return;
  const next = dot + 2;
  let end = b.strchr(next, SPACE);
  const eol = b.strchrnul(next, NL);
  if (end < 0 || eol < end) end = eol;
  if (hexsz < end - next) return;
  if (b.at(end) === SPACE) patch.oldMode = modeAt(state, end + 1);
}

interface FragmentHeader {
  oldStart: bigint;
  oldLines: bigint;
  newStart: bigint;
  newLines: bigint;
  end: number;
}

/** parse_fragment_header: `@@ -a[,b] +c[,d] @@` (the line must end with a newline). */
function fragmentHeader(b: PatchBytes, line: number, len: number): FragmentHeader | null {
  if (!len || b.at(line + len - 1) !== NL) return null;
  const old = parseRange(b, line, len, 4, " +");
  if (!old) return null;
  const neu = parseRange(b, line, len, old.offset, " @@");
  if (!neu) return null;
  return {
    oldStart: old.start,
    oldLines: old.lines,
    newStart: neu.start,
    newLines: neu.lines,
    end: neu.offset,
  };
}

function parseRange(
  b: PatchBytes,
  line: number,
  len: number,
  offset: number,
  expect: string,
): { start: bigint; lines: bigint; offset: number } | null {
  if (offset < 0 || offset >= len) return null;
  const first = parseNum(b, line + offset);
  if (!first) return null;
  offset += first.digits;
  let lines = 1n;
  if (b.at(line + offset) === 44) {
    const second = parseNum(b, line + offset + 1);
    if (!second) return null;
    lines = second.value;
    offset += second.digits + 1;
  }
  if (expect.length > len - offset || !b.startsWith(line + offset, expect)) return null;
  return { start: first.value, lines, offset: offset + expect.length };
}

function parseNum(b: PatchBytes, at: number): { value: bigint; digits: number } | null {
  if (!isDigit(b.at(at))) return null;
  const { value, end } = strtoul(b, at, 10);
  return { value, digits: end - at };
}

/** parse_single_patch: the hunks right after a header, and what they say about creation and deletion. */
function parseSinglePatch(state: ReadState, start: number, size: number, patch: RawPatch): number {
  const { b } = state;
  let offset = 0;
  let oldLines = 0n;
  let newLines = 0n;
  while (size > 4 && b.startsWith(start + offset, "@@ -")) {
    const fragment = parseFragment(state, start + offset, size);
    if (!fragment) fail(state, start + offset, `corrupt patch at line ${lineAt(b, start + offset)}`);
    patch.hunks.push(fragment.hunk);
    oldLines += fragment.oldLines;
    newLines += fragment.newLines;
    offset += fragment.len;
    size -= fragment.len;
  }
  // Lines removed mean it is no creation, lines added no deletion; a plain diff with one hunk that does
  // neither leaves the question to the tree (or to its headers).
  const several = patch.hunks.length > 1;
  if (patch.isNew < 0 && (oldLines || several)) patch.isNew = 0;
  if (patch.isDelete < 0 && (newLines || several)) patch.isDelete = 0;
  if (patch.isNew > 0 && oldLines)
    fail(state, start, `new file ${show(patch.newName)} depends on old contents`);
  if (patch.isDelete > 0 && newLines)
    fail(state, start, `deleted file ${show(patch.oldName)} still has contents`);
  return offset;
}

/**
 * parse_fragment: one hunk, its lines counted against its header. git's counters are unsigned, so a
 * line past the count never brings it back to zero: such a hunk is corrupt, as is one that neither adds
 * nor removes. One "\\ No newline" line right after the last counted line belongs to the hunk.
 */
function parseFragment(
  state: ReadState,
  line: number,
  size: number,
): { hunk: Hunk; len: number; oldLines: bigint; newLines: bigint } | null {
  const { b } = state;
  const len = b.lineLen(line, size);
  const header = fragmentHeader(b, line, len);
  if (!header) return null;
  const hunk: Hunk = {
    oldStart: safeNumber(header.oldStart),
    oldLines: safeNumber(header.oldLines),
    newStart: safeNumber(header.newStart),
    newLines: safeNumber(header.newLines),
    header: b.text(line + header.end, line + len - 1).trim(),
    lines: [],
  };
  let oldLeft = header.oldLines;
  let newLeft = header.newLines;
  const wrapped = -1n;
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  let added = 0;
  let deleted = 0;
  let offset = len;
  let at = line + len;
  size -= len;
  const markNoNewline = () => {
    const last = hunk.lines.at(-1);
    if (last) last.noNewline = true;
  };
  let previousWasLine = false;
  for (let l = 0; size > 0; offset += l, size -= l, at += l) {
    if (!oldLeft && !newLeft) break;
    l = b.lineLen(at, size);
    if (!l || b.at(at + l - 1) !== NL) return null;
    const tag = b.at(at);
    const text = tag === NL ? "" : b.text(at + 1, at + l - 1);
    if (tag === NL || tag === SPACE) {
      oldLeft = oldLeft === 0n || oldLeft === wrapped ? wrapped : oldLeft - 1n;
      newLeft = newLeft === 0n || newLeft === wrapped ? wrapped : newLeft - 1n;
      const entry: DiffLine = { kind: "context", text, oldLine: oldLine++, newLine: newLine++ };
      if (tag === NL) entry.bare = true;
      hunk.lines.push(entry);
      previousWasLine = true;
    } else if (tag === 45) {
      deleted++;
      oldLeft = oldLeft === 0n || oldLeft === wrapped ? wrapped : oldLeft - 1n;
      hunk.lines.push({ kind: "del", text, oldLine: oldLine++ });
      previousWasLine = true;
    } else if (tag === 43) {
      added++;
      newLeft = newLeft === 0n || newLeft === wrapped ? wrapped : newLeft - 1n;
      hunk.lines.push({ kind: "add", text, newLine: newLine++ });
      previousWasLine = true;
    } else if (tag === 92) {
      if (l < 12 || !b.startsWith(at, "\\ ")) return null;
      // git drops the newline of the line right before; after another marker or the hunk header it is a no-op.
      if (previousWasLine) markNoNewline();
      previousWasLine = false;
    } else {
      return null;
    }
  }
  if (oldLeft || newLeft) return null;
  if (!deleted && !added) return null;
  if (12 < size && b.startsWith(at, "\\ ")) {
    offset += b.lineLen(at, size);
    if (previousWasLine) markNoNewline();
  }
  return { hunk, len: offset, oldLines: header.oldLines, newLines: header.newLines };
}

function show(name: Name | null): string {
  return name === null ? "(null)" : Buffer.from(name).toString("utf8");
}

function decodeName(name: Name | null): string | null {
  if (name === null) return null;
  return Buffer.from(cString(name)).toString("utf8");
}

function octal(mode: number | undefined): string | undefined {
  return mode === undefined ? undefined : mode.toString(8);
}

/** What a patch record means, as the rest of gagar reads file diffs. */
function toFileDiff(patch: RawPatch, b: PatchBytes, at: number, applied: boolean): FileDiff {
  // check_preimage asserts that a creation names no old file: git aborts on such a header.
  if (applied && patch.isNew > 0 && patch.oldName)
    throw new DiffParseError(
      lineAt(b, at),
      `git apply aborts on a new file that also names an old one (${show(patch.oldName)})`,
    );
  const status = patch.isRename
    ? "renamed"
    : patch.isCopy
      ? "copied"
      : patch.isNew > 0
        ? "added"
        : patch.isDelete > 0
          ? "deleted"
          : "modified";
  const file: FileDiff = {
    oldPath: status === "added" ? null : decodeName(patch.oldName),
    newPath: status === "deleted" ? null : decodeName(patch.newName),
    status,
    binary: patch.isBinary,
    hunks: patch.hunks,
  };
  const oldMode = octal(patch.oldMode);
  const newMode = octal(patch.newMode);
  if (oldMode !== undefined) file.oldMode = oldMode;
  if (newMode !== undefined) file.newMode = newMode;
  if (patch.traditional && (patch.isNew !== 0 || patch.isDelete === 1)) file.plain = true;
  if (patch.traditional && patch.isNew < 0) file.createsIfAbsent = true;
  if (status === "deleted" && patch.newName)
    file.anomaly = `a deletion of ${show(patch.oldName)} that also names ${show(patch.newName)}`;
  return file;
}

/** Undoes git's C-style path quoting (octal escapes are UTF-8 bytes). */
export function unquote(raw: string): string {
  if (!(raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2)) return raw;
  const b = new PatchBytes(Buffer.from(raw, "utf8"));
  const quoted = unquoteC(b, 0);
  return quoted ? Buffer.from(quoted.bytes).toString("utf8") : raw;
}
