/**
 * The byte-level primitives git's patch reader (apply.c) is written in, for a faithful port: C's
 * `isspace`/`isdigit`, `strtoul`, `linelen` and git's C-style unquoting, over the patch's UTF-8 bytes.
 *
 * git reads the patch as one NUL-padded buffer, so a read past the end sees 0; `at` does the same.
 */

export class PatchBytes {
  constructor(readonly bytes: Buffer) {}

  get length(): number {
    return this.bytes.length;
  }

  /** The byte at `i`, or 0 past the end (git's NUL slop). */
  at(i: number): number {
    return i >= 0 && i < this.bytes.length ? this.bytes[i]! : 0;
  }

  /** Whether the bytes at `i` are `ascii` (memcmp). */
  startsWith(i: number, ascii: string): boolean {
    for (let k = 0; k < ascii.length; k++) if (this.at(i + k) !== ascii.charCodeAt(k)) return false;
    return true;
  }

  /** The length of the line at `i` including its newline, within `size` bytes (git's linelen). */
  lineLen(i: number, size: number): number {
    let len = 0;
    while (size-- > 0) {
      len++;
      if (this.at(i++) === NL) break;
    }
    return len;
  }

  /** Index of `byte` from `i` on, stopping at a NUL or the end like strchr; -1 when absent. */
  strchr(i: number, byte: number): number {
    for (; i < this.bytes.length; i++) {
      const c = this.bytes[i]!;
      if (c === byte) return i;
      if (c === 0) return -1;
    }
    return -1;
  }

  /** Index of `byte` from `i` on, or of the terminating NUL or end (strchrnul). */
  strchrnul(i: number, byte: number): number {
    for (; i < this.bytes.length; i++) {
      const c = this.bytes[i]!;
      if (c === byte || c === 0) return i;
    }
    return this.bytes.length;
  }

  slice(start: number, end: number): Uint8Array {
    return this.bytes.subarray(start, end);
  }

  text(start: number, end: number): string {
    return this.bytes.toString("utf8", start, end);
  }
}

export const NL = 10;
export const SLASH = 47;
export const QUOTE = 34;
export const BACKSLASH = 92;
export const SPACE = 32;
export const TAB = 9;

/** C's isspace in the C locale: space, \t, \n, \v, \f, \r. */
export function isSpace(c: number): boolean {
  return c === SPACE || (c >= 9 && c <= 13);
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

const ULONG_MAX = (1n << 64n) - 1n;

/**
 * C's strtoul at `i`: leading white space, an optional sign, then digits of `base` (8 or 10). A value
 * out of range saturates at ULONG_MAX; `end` is `i` itself when there are no digits.
 */
export function strtoul(b: PatchBytes, i: number, base: 8 | 10): { value: bigint; end: number } {
  let k = i;
  while (isSpace(b.at(k))) k++;
  let negative = false;
  if (b.at(k) === 43 || b.at(k) === 45) {
    negative = b.at(k) === 45;
    k++;
  }
  const first = k;
  let value = 0n;
  let overflow = false;
  for (;;) {
    const d = b.at(k) - 48;
    if (d < 0 || d >= base) break;
    value = value * BigInt(base) + BigInt(d);
    if (value > ULONG_MAX) overflow = true;
    k++;
  }
  if (k === first) return { value: 0n, end: i };
  if (overflow) return { value: ULONG_MAX, end: k };
  return { value: negative && value ? ULONG_MAX + 1n - value : value, end: k };
}

/** A number as JavaScript can hold it; beyond 2^53 it is clamped (no patch has that many lines). */
export function safeNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

const ESCAPES: Record<number, number> = {
  97: 7, // a
  98: 8, // b
  102: 12, // f
  110: 10, // n
  114: 13, // r
  116: 9, // t
  118: 11, // v
  92: 92,
  34: 34,
};

/**
 * git's unquote_c_style at `i` (which must hold `"`): the unquoted bytes and the index just past the
 * closing quote, or null for a malformed quote. Like git it runs on to the closing quote even across
 * lines, and stops at a NUL.
 */
export function unquoteC(b: PatchBytes, i: number): { bytes: Uint8Array; end: number } | null {
  if (b.at(i) !== QUOTE) return null;
  const out: number[] = [];
  let k = i + 1;
  for (;;) {
    const c = b.at(k++);
    if (c === QUOTE) return { bytes: Uint8Array.from(out), end: k };
    if (c === 0) return null;
    if (c !== BACKSLASH) {
      out.push(c);
      continue;
    }
    const e = b.at(k++);
    const mapped = ESCAPES[e];
    if (mapped !== undefined) {
      out.push(mapped);
      continue;
    }
    if (e < 48 || e > 51) return null;
    const d2 = b.at(k++);
    const d3 = b.at(k++);
    if (d2 < 48 || d2 > 55 || d3 < 48 || d3 > 55) return null;
    out.push(((e - 48) << 6) | ((d2 - 48) << 3) | (d3 - 48));
  }
}
