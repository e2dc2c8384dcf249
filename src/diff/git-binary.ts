import { inflateSync } from "node:zlib";
import { type PatchBytes, safeNumber, strtoul } from "./git-bytes.ts";

/**
 * How far git reads a `GIT binary patch` payload (apply.c parse_binary): one forward hunk and an
 * optional reverse one, each a `literal N` or `delta N` line, then base-85 lines of deflated data, then
 * an empty line. git decodes and inflates each hunk to exactly N bytes; where that fails it gives up on
 * the payload and stops reading the patch there (what came before still applies). The gate refuses
 * binary sections whatever they hold, so only where the section ends matters here.
 *
 * Returns the payload's length in bytes, or -1 where git gives up.
 */
export function binaryPayloadLength(b: PatchBytes, start: number, size: number): number {
  let used = 0;
  for (let hunk = 0; hunk < 2; hunk++) {
    const read = binaryHunk(b, start + used, size - used);
    if (read === null) return hunk === 0 ? -1 : used;
    if (read < 0) return -1;
    used += read;
  }
  return used;
}

/** One hunk's length; null when the line is no hunk at all, -1 when the hunk is corrupt. */
function binaryHunk(b: PatchBytes, at: number, size: number): number | null {
  let origlen: number;
  if (b.startsWith(at, "delta ")) origlen = safeNumber(strtoul(b, at + 6, 10).value);
  else if (b.startsWith(at, "literal ")) origlen = safeNumber(strtoul(b, at + 8, 10).value);
  else return null;
  let used = b.lineLen(at, size);
  const data: number[] = [];
  for (;;) {
    const line = at + used;
    const llen = b.lineLen(line, size - used);
    used += llen;
    if (llen === 1) break;
    // Lines are a length byte, groups of 5 base-85 digits and a newline.
    if (llen < 7 || (llen - 2) % 5) return -1;
    const max = ((llen - 2) / 5) * 4;
    const c = b.at(line);
    const length = c >= 65 && c <= 90 ? c - 64 : c >= 97 && c <= 122 ? c - 70 : -1;
    if (length < 0 || max < length || length <= max - 4) return -1;
    if (!decode85(b, line + 1, length, data)) return -1;
  }
  if (origlen > 2 ** 30) return -1;
  try {
    return inflateSync(Uint8Array.from(data)).length === origlen ? used : -1;
  } catch {
    return -1;
  }
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
const DIGIT = new Map([...ALPHABET].map((ch, i) => [ch.charCodeAt(0), i]));

/** git's decode_85: `length` bytes from groups of five digits at `at`; false for a bad digit or overflow. */
function decode85(b: PatchBytes, at: number, length: number, out: number[]): boolean {
  while (length > 0) {
    let acc = 0;
    for (let k = 0; k < 5; k++) {
      const digit = DIGIT.get(b.at(at++));
      if (digit === undefined) return false;
      if (k === 4 && (Math.floor(0xffffffff / 85) < acc || 0xffffffff - digit < acc * 85)) return false;
      acc = acc * 85 + digit;
    }
    const count = Math.min(length, 4);
    length -= count;
    for (let k = 0; k < count; k++) out.push((acc >>> (24 - 8 * k)) & 0xff);
  }
  return true;
}
