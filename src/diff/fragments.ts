import { isDigit, NL, type PatchBytes, SPACE, safeNumber, strtoul } from "./git-bytes.ts";
import { fail, lineAt, type RawPatch, type ReadState, show } from "./read-state.ts";
import type { DiffLine, Hunk } from "./types.ts";

/** The hunks of a file diff as git reads them: `@@ -a,b +c,d @@` headers and their lines. */

export interface FragmentHeader {
  oldStart: bigint;
  oldLines: bigint;
  newStart: bigint;
  newLines: bigint;
  end: number;
}

/** parse_fragment_header: `@@ -a[,b] +c[,d] @@` (the line must end with a newline). */
export function fragmentHeader(b: PatchBytes, line: number, len: number): FragmentHeader | null {
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
export function parseSinglePatch(state: ReadState, start: number, size: number, patch: RawPatch): number {
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
export function parseFragment(
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
