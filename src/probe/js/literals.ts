import type { LiteralSyntax } from "../perturb.ts";
import { fixedFloat, parseDecimal } from "../python/literals.ts";

/** How JavaScript and TypeScript literals are read from their source text and written back (pure). */

/** The value of a string or substitution-free template literal's source text, or null. */
export function decodeJsString(text: string): string | null {
  const quote = text[0];
  if ((quote !== '"' && quote !== "'" && quote !== "`") || text.length < 2 || text.at(-1) !== quote)
    return null;
  const body = text.slice(1, -1);
  if (quote === "`" && /(^|[^\\])\$\{/.test(body)) return null;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = body[++i];
    if (n === undefined) return null;
    switch (n) {
      case "n":
        out += "\n";
        break;
      case "t":
        out += "\t";
        break;
      case "r":
        out += "\r";
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case "v":
        out += "\v";
        break;
      case "0":
        if (/[0-9]/.test(body[i + 1] ?? "")) return null;
        out += "\0";
        break;
      case "\r":
        if (body[i + 1] === "\n") i++;
        break;
      case "\n":
      case "\u2028":
      case "\u2029":
        break;
      case "x": {
        const digits = body.slice(i + 1, i + 3);
        if (!/^[0-9A-Fa-f]{2}$/.test(digits)) return null;
        out += String.fromCharCode(Number.parseInt(digits, 16));
        i += 2;
        break;
      }
      case "u": {
        const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(body.slice(i + 1));
        if (braced) {
          out += String.fromCodePoint(Number.parseInt(braced[1]!, 16));
          i += braced[0].length;
          break;
        }
        const digits = body.slice(i + 1, i + 5);
        if (!/^[0-9A-Fa-f]{4}$/.test(digits)) return null;
        out += String.fromCharCode(Number.parseInt(digits, 16));
        i += 4;
        break;
      }
      default:
        if (/[1-9]/.test(n)) return null;
        out += n;
    }
  }
  return out;
}

export type JsNumber =
  | { integer: bigint; bigint: boolean }
  | { integer: null; value: number; decimals: number; exponent: number | null };

/** The value of a numeric literal (`10`, `0x1f`, `1_000`, `1.5e3`, `10n`), or null. */
export function parseJsNumber(text: string): JsNumber | null {
  const t = text.replaceAll("_", "").toLowerCase();
  if (t.endsWith("n")) {
    try {
      return { integer: BigInt(t.slice(0, -1)), bigint: true };
    } catch {
      return null;
    }
  }
  if (/^0[xob]/.test(t)) {
    try {
      return { integer: BigInt(t), bigint: false };
    } catch {
      return null;
    }
  }
  if (/^\d+$/.test(t)) return /^0\d/.test(t) ? null : { integer: BigInt(t), bigint: false };
  const decimal = parseDecimal(t);
  return decimal && { integer: null, ...decimal };
}

export const jsSyntax: LiteralSyntax = {
  integer: (v, bigint) => {
    const body = `${v}${bigint ? "n" : ""}`;
    return v < 0n ? `(${body})` : body;
  },
  float: (v, decimals, exponent) => fixedFloat(v, decimals, exponent, false),
  string: (value) => JSON.stringify(value),
  boolean: (v) => (v ? "true" : "false"),
  collection: (_open, _close, elements) => `[${elements.join(", ")}]`,
};
