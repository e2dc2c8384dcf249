import type { LiteralSyntax } from "../perturb.ts";

/** How Python literals are read from their source text and written back (pure). */

/** The value of a string literal's source text, or null when it is not a constant (f-string, `\N{…}`). */
export function decodePythonString(text: string): { value: string; bytes: boolean } | null {
  const m = /^([A-Za-z]*)('''|"""|'|")/.exec(text);
  if (!m) return null;
  const prefix = m[1]!.toLowerCase();
  const quote = m[2]!;
  if (prefix.includes("f") || !text.endsWith(quote) || text.length < prefix.length + 2 * quote.length)
    return null;
  const body = text.slice(prefix.length + quote.length, text.length - quote.length);
  const bytes = prefix.includes("b");
  if (prefix.includes("r")) return { value: body, bytes };
  const value = decodeEscapes(body, bytes);
  return value === null ? null : { value, bytes };
}

const SIMPLE: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

function decodeEscapes(body: string, bytes: boolean): string | null {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = body[i + 1];
    if (n === undefined) return null;
    if (n === "\n") {
      i++;
      continue;
    }
    if (n in SIMPLE) {
      out += SIMPLE[n];
      i++;
      continue;
    }
    const hex = (len: number) => {
      const digits = body.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(digits)) return null;
      i += 1 + len;
      return String.fromCodePoint(Number.parseInt(digits, 16));
    };
    if (n >= "0" && n <= "7") {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCodePoint(Number.parseInt(digits, 8));
      i += digits.length;
      continue;
    }
    const decoded =
      n === "x"
        ? hex(2)
        : n === "u" && !bytes
          ? hex(4)
          : n === "U" && !bytes
            ? hex(8)
            : n === "N"
              ? null
              : undefined;
    if (decoded === null) return null;
    if (decoded === undefined) {
      out += `\\${n}`;
      i++;
      continue;
    }
    out += decoded;
  }
  return out;
}

/** A double-quoted Python literal of `value` (a bytes literal holds the characters as Latin-1 bytes). */
export function pythonStringLiteral(value: string, bytes: boolean): string {
  let out = "";
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f || (bytes && cp > 0x7f))
      out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (!bytes && /^[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]$/u.test(ch))
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, "0")}` : `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${bytes ? "b" : ""}"${out}"`;
}

/** The value of an integer literal (`0x1F`, `1_000`), or null for an imaginary one (`2j`). */
export function parsePythonInteger(text: string): bigint | null {
  const t = text.replaceAll("_", "").toLowerCase();
  if (t.endsWith("j") || t.endsWith("l")) return null;
  if (/^0[0-7]+$/.test(t)) return null;
  try {
    return BigInt(t);
  } catch {
    return null;
  }
}

/** The value, decimals and exponent of a float literal (`1.5e3`), or null for an imaginary one. */
export function parsePythonFloat(
  text: string,
): { value: number; decimals: number; exponent: number | null } | null {
  const t = text.replaceAll("_", "").toLowerCase();
  if (t.endsWith("j")) return null;
  return parseDecimal(t);
}

/** A decimal float's value, the digits written after its point and its exponent. */
export function parseDecimal(t: string): { value: number; decimals: number; exponent: number | null } | null {
  const m = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/.exec(t);
  if (!m || (m[1] === "" && !m[2])) return null;
  const value = Number(t);
  if (!Number.isFinite(value)) return null;
  return { value, decimals: m[2]?.length ?? 0, exponent: m[3] === undefined ? null : Number(m[3]) };
}

/** Writes a float at the precision its literal was written with. */
export function fixedFloat(
  value: number,
  decimals: number,
  exponent: number | null,
  pointRequired: boolean,
): string {
  const scaled = exponent === null ? value : value / 10 ** exponent;
  let body = scaled.toFixed(Math.min(decimals, 20));
  if (pointRequired && decimals === 0 && !body.includes("e")) body += ".0";
  if (exponent !== null) body += `e${exponent}`;
  return body.startsWith("-") ? `(${body})` : body;
}

export const pythonSyntax: LiteralSyntax = {
  integer: (v) => (v < 0n ? `(${v})` : `${v}`),
  float: (v, decimals, exponent) => fixedFloat(v, decimals, exponent, true),
  string: pythonStringLiteral,
  boolean: (v) => (v ? "True" : "False"),
  collection(open, close, elements) {
    if (open === "(" && elements.length === 1) return `(${elements[0]},)`;
    if (open === "{" && elements.length === 0) return "set()";
    return `${open}${elements.join(", ")}${close}`;
  },
};
