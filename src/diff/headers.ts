import { isSpace, NL, SPACE, strtoul } from "./git-bytes.ts";
import {
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
import { fail, lineAt, type RawPatch, type ReadState, show } from "./read-state.ts";

/** The header of a file diff as git reads it: `diff --git` and its extended lines, or a plain `---`/`+++` pair. */

/** parse_traditional_patch: names, creation and deletion from a `---`/`+++` pair. */
export function parseTraditional(
  state: ReadState,
  firstLine: number,
  secondLine: number,
  patch: RawPatch,
): void {
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

export type HeaderOp = (state: ReadState, at: number, patch: RawPatch) => void;

export const END_OF_HEADER: HeaderOp = () => {};

/** What each extended header line does, in git's order (the first whose prefix matches wins). */
export const HEADER_OPS: [string, HeaderOp][] = [
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
export function parseGitHeader(
  state: ReadState,
  line: number,
  len: number,
  size: number,
  patch: RawPatch,
): number {
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
