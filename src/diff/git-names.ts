import { isDigit, isSpace, NL, type PatchBytes, QUOTE, SLASH, SPACE, TAB, unquoteC } from "./git-bytes.ts";

/**
 * How `git apply` reads a file name out of a patch line (apply.c: find_name and its helpers,
 * git_header_name, the timestamp and p-value heuristics of traditional diffs), ported byte for byte so
 * that the gate sees the very path git would write. Names are bytes; `p` is the number of leading
 * components to strip (git's -p, 1 unless a traditional diff made git guess 0).
 */

export type Name = Uint8Array;

export const TERM_SPACE = 1;
export const TERM_TAB = 2;

/** A name as C sees it: up to its first NUL (an unquoted `\000` ends it). */
export function cString(name: Name): Name {
  const nul = name.indexOf(0);
  return nul < 0 ? name : name.subarray(0, nul);
}

export function sameName(a: Name | null, b: Name | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** git's squash_slash: runs of `/` become one. */
function squashSlash(name: Name): Name {
  const out: number[] = [];
  for (let i = 0; i < name.length; ) {
    const c = name[i++]!;
    out.push(c);
    if (c === SLASH) while (name[i] === SLASH) i++;
  }
  return Uint8Array.from(out);
}

export function isDevNull(b: PatchBytes, i: number): boolean {
  return b.startsWith(i, "/dev/null") && isSpace(b.at(i + 9));
}

function nameTerminates(c: number, terminate: number): boolean {
  if (c === SPACE && !(terminate & TERM_SPACE)) return false;
  if (c === TAB && !(terminate & TERM_TAB)) return false;
  return true;
}

/** A C-quoted name ("GNU" style): unquoted, its first `p` components dropped; null if it cannot be. */
function findNameGnu(b: PatchBytes, line: number, p: number): Name | null {
  const quoted = unquoteC(b, line);
  if (!quoted) return null;
  const name = cString(quoted.bytes);
  let cp = 0;
  for (; p > 0; p--) {
    const slash = name.indexOf(SLASH, cp);
    if (slash < 0) return null;
    cp = slash + 1;
  }
  return squashSlash(name.subarray(cp));
}

function findNameCommon(
  b: PatchBytes,
  line: number,
  def: Name | null,
  p: number,
  end: number | null,
  terminate: number,
): Name | null {
  let start = p === 0 ? line : -1;
  let i = line;
  while (i !== end) {
    const c = b.at(i);
    if (end === null) {
      if (i >= b.length) break;
      if (isSpace(c) && (c === NL || nameTerminates(c, terminate))) break;
    }
    i++;
    if (c === SLASH && --p === 0) start = i;
  }
  const fallback = def === null ? null : squashSlash(def);
  if (start < 0) return fallback;
  const len = i - start;
  if (!len) return fallback;
  // git prefers the shorter name when the other is it with something tacked on ("file.orig").
  if (def !== null && def.length < len && sameName(b.slice(start, start + def.length), def)) return fallback;
  return squashSlash(b.slice(start, i));
}

/** find_name: the name at `line` (quoted or not), ending at white space as `terminate` says. */
export function findName(
  b: PatchBytes,
  line: number,
  def: Name | null,
  p: number,
  terminate: number,
): Name | null {
  if (b.at(line) === QUOTE) {
    const name = findNameGnu(b, line, p);
    if (name) return name;
  }
  return findNameCommon(b, line, def, p, null, terminate);
}

/** find_name_traditional: a `---`/`+++` name of a plain diff, without its timestamp. */
export function findNameTraditional(b: PatchBytes, line: number, def: Name | null, p: number): Name | null {
  if (b.at(line) === QUOTE) {
    const name = findNameGnu(b, line, p);
    if (name) return name;
  }
  const len = b.strchrnul(line, NL) - line;
  const stamp = diffTimestampLen(b, line, len);
  if (!stamp) return findNameCommon(b, line, def, p, null, TERM_TAB);
  return findNameCommon(b, line, def, p, line + len - stamp, 0);
}

/** guess_p_value: 0 when a plain diff's name has no directory (run at the top of the tree), else -1. */
export function guessPValue(b: PatchBytes, nameline: number): number {
  if (isDevNull(b, nameline)) return -1;
  const name = findNameTraditional(b, nameline, null, 0);
  if (!name) return -1;
  return name.includes(SLASH) ? -1 : 0;
}

const EPOCH_TIME = /^[0-2][0-9]:([0-5][0-9]):00(\.0+)? ([-+][0-2][0-9]:?[0-5][0-9])\n/;

/** has_epoch_timestamp: GNU diff's way of saying a side does not exist (1970-01-01 00:00:00 +0000). */
export function hasEpochTimestamp(b: PatchBytes, nameline: number): boolean {
  let stamp = -1;
  for (let cp = nameline; cp < b.length && b.at(cp) !== NL; cp++) if (b.at(cp) === TAB) stamp = cp + 1;
  if (stamp < 0) return false;
  let epochHour: number;
  if (b.startsWith(stamp, "1969-12-31 ")) epochHour = 24;
  else if (b.startsWith(stamp, "1970-01-01 ")) epochHour = 0;
  else return false;
  stamp += 11;
  const eol = b.strchrnul(stamp, NL);
  const match = EPOCH_TIME.exec(b.text(stamp, Math.min(eol + 1, b.length)));
  if (!match) return false;
  const text = match[0];
  const hour = Number.parseInt(text.slice(0, 2), 10);
  const minute = Number.parseInt(match[1]!, 10);
  const zone = match[3]!;
  const digits = /^\d+/.exec(zone.slice(1))![0];
  let offset = Number.parseInt(digits, 10);
  const rest = zone.slice(1 + digits.length);
  if (rest.startsWith(":")) offset = offset * 60 + Number.parseInt(rest.slice(1), 10);
  else offset = Math.trunc(offset / 100) * 60 + (offset % 100);
  if (zone[0] === "-") offset = -offset;
  return hour * 60 + minute - offset === epochHour * 60;
}

/** diff_timestamp_len: the length of a trailing date (with the tab or spaces before it), or 0. */
function diffTimestampLen(b: PatchBytes, line: number, len: number): number {
  let end = line + len;
  if (!isDigit(b.at(end - 1))) return 0;
  let n = saneTzLen(b, line, end - line) || tzWithColonLen(b, line, end - line);
  end -= n;
  n = shortTimeLen(b, line, end - line) || fractionalTimeLen(b, line, end - line);
  end -= n;
  n = dateLen(b, line, end - line);
  if (!n) return 0;
  end -= n;
  if (end === line) return 0;
  if (b.at(end - 1) === TAB) return line + len - (end - 1);
  if (b.at(end - 1) !== SPACE) return 0;
  end -= trailingSpacesLen(b, line, end - line);
  return line + len - end;
}

function saneTzLen(b: PatchBytes, line: number, len: number): number {
  if (len < 6 || b.at(line + len - 6) !== SPACE) return 0;
  const tz = line + len - 6;
  if (b.at(tz + 1) !== 43 && b.at(tz + 1) !== 45) return 0;
  for (let p = tz + 2; p !== line + len; p++) if (!isDigit(b.at(p))) return 0;
  return line + len - tz;
}

function tzWithColonLen(b: PatchBytes, line: number, len: number): number {
  if (len < 7 || b.at(line + len - 3) !== 58) return 0;
  const tz = line + len - 7;
  if (b.at(tz) !== SPACE || (b.at(tz + 1) !== 43 && b.at(tz + 1) !== 45)) return 0;
  const p = tz + 2;
  if (
    !isDigit(b.at(p)) ||
    !isDigit(b.at(p + 1)) ||
    b.at(p + 2) !== 58 ||
    !isDigit(b.at(p + 3)) ||
    !isDigit(b.at(p + 4))
  )
    return 0;
  return line + len - tz;
}

function dateLen(b: PatchBytes, line: number, len: number): number {
  if (len < 8 || b.at(line + len - 3) !== 45) return 0;
  let date = line + len - 8;
  const p = date;
  if (
    !isDigit(b.at(p)) ||
    !isDigit(b.at(p + 1)) ||
    b.at(p + 2) !== 45 ||
    !isDigit(b.at(p + 3)) ||
    !isDigit(b.at(p + 4)) ||
    b.at(p + 5) !== 45 ||
    !isDigit(b.at(p + 6)) ||
    !isDigit(b.at(p + 7))
  )
    return 0;
  if (date - line >= 2 && isDigit(b.at(date - 1)) && isDigit(b.at(date - 2))) date -= 2;
  return line + len - date;
}

function shortTimeLen(b: PatchBytes, line: number, len: number): number {
  if (len < 9 || b.at(line + len - 3) !== 58) return 0;
  const p = line + len - 9;
  if (
    b.at(p) !== SPACE ||
    !isDigit(b.at(p + 1)) ||
    !isDigit(b.at(p + 2)) ||
    b.at(p + 3) !== 58 ||
    !isDigit(b.at(p + 4)) ||
    !isDigit(b.at(p + 5)) ||
    b.at(p + 6) !== 58 ||
    !isDigit(b.at(p + 7)) ||
    !isDigit(b.at(p + 8))
  )
    return 0;
  return line + len - p;
}

function fractionalTimeLen(b: PatchBytes, line: number, len: number): number {
  if (!len || !isDigit(b.at(line + len - 1))) return 0;
  let p = line + len - 1;
  while (p > line && isDigit(b.at(p))) p--;
  if (b.at(p) !== 46) return 0;
  const n = shortTimeLen(b, line, p - line);
  if (!n) return 0;
  return line + len - p + n;
}

function trailingSpacesLen(b: PatchBytes, line: number, len: number): number {
  if (!len || b.at(line + len - 1) !== SPACE) return 0;
  let p = line + len;
  while (p !== line) {
    p--;
    if (b.at(p) !== SPACE) return line + len - (p + 1);
  }
  return len;
}

/** skip_tree_prefix over `get(start…start+llen)`: the index after `p` components, or -1 (absolute, too short). */
function skipTreePrefix(get: (i: number) => number, start: number, p: number, llen: number): number {
  if (!p) return llen && get(start) === SLASH ? -1 : start;
  let slashes = p;
  for (let i = 0; i < llen; i++) {
    if (get(start + i) === SLASH && --slashes <= 0) return i === 0 ? -1 : start + i + 1;
  }
  return -1;
}

function inBytes(bytes: Uint8Array): (i: number) => number {
  return (i) => bytes[i] ?? 0;
}

/**
 * git_header_name: the one name of a `diff --git` line whose two sides name the same path (a mode
 * change, or an empty file created or deleted), or null; `line` is the line's start and `llen` its
 * length with the newline.
 */
export function gitHeaderName(b: PatchBytes, p: number, line: number, llen: number): Name | null {
  line += "diff --git ".length;
  llen -= "diff --git ".length;
  const lineEnd = line + llen;
  const inPatch = (i: number) => b.at(i);
  if (b.at(line) === QUOTE) {
    const first = unquoteC(b, line);
    if (!first) return null;
    const cp = skipTreePrefix(inBytes(first.bytes), 0, p, first.bytes.length);
    if (cp < 0) return null;
    const name = first.bytes.subarray(cp);
    let second = first.end;
    while (second < lineEnd && isSpace(b.at(second))) second++;
    if (lineEnd <= second) return null;
    if (b.at(second) === QUOTE) {
      const other = unquoteC(b, second);
      if (!other) return null;
      const np = skipTreePrefix(inBytes(other.bytes), 0, p, other.bytes.length);
      if (np < 0) return null;
      return sameName(cString(other.bytes.subarray(np)), cString(name)) ? cString(name) : null;
    }
    const np = skipTreePrefix(inPatch, second, p, lineEnd - second);
    if (np < 0) return null;
    if (lineEnd - np !== name.length || !sameName(b.slice(np, np + name.length), name)) return null;
    return cString(name);
  }

  const name = skipTreePrefix(inPatch, line, p, llen);
  if (name < 0) return null;
  // With the first name unquoted, a quote can only open the second one.
  for (let second = name; second < lineEnd; second++) {
    if (b.at(second) !== QUOTE) continue;
    const other = unquoteC(b, second);
    if (!other) return null;
    const np = skipTreePrefix(inBytes(other.bytes), 0, p, other.bytes.length);
    if (np < 0) return null;
    const rest = other.bytes.subarray(np);
    const len = rest.length;
    if (len < second - name && sameName(rest, b.slice(name, name + len)) && isSpace(b.at(name + len)))
      return cString(rest);
    return null;
  }
  // Unquoted on both sides: accept a name only if it shows up twice, exactly the same.
  const eol = b.strchr(name, NL);
  if (eol < 0) return null;
  const lineLen = eol - name;
  for (let len = 0; name + len < b.length; len++) {
    const c = b.at(name + len);
    if (c === NL) return null;
    if (c !== TAB && c !== SPACE) continue;
    if (!b.at(name + len + 1)) return null;
    const second = skipTreePrefix(inPatch, name + len + 1, p, lineLen - (len + 1));
    if (second < 0) return null;
    if (b.at(second + len) === NL && sameName(b.slice(name, name + len), b.slice(second, second + len)))
      return b.slice(name, name + len).slice();
  }
  return null;
}
