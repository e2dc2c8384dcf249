/**
 * Observed values (the tagged JSON the probe helpers write, docs/probes.md) compared and shown (pure).
 *
 * Two observations are the same behaviour when their canonical forms are equal. The canonical form
 * forgets what honest implementations are free to differ in and the tests cannot see: exception and
 * error messages (an error's type is kept), an int where a float of the same value was written
 * (Python's `2 == 2.0`), float noise beyond 12 significant digits (0.1 + 0.2), the class of a
 * named tuple (it equals a plain tuple). Dicts, sets, Maps and Sets are unordered; lists keep order.
 */

type Tagged = { t?: unknown; [k: string]: unknown };

export function canonicalKey(value: unknown): string {
  return stableJson(canonicalise(value));
}

function canonicalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalise);
  if (value === null || typeof value !== "object") return value;
  const v = value as Tagged;
  switch (v.t) {
    case "int":
    case "float":
    case "num":
      return { t: "num", v: numberKey(v.v) };
    case "raised":
    case "error":
      return { t: v.t, type: v.type };
    case "tuple":
      return { t: "tuple", v: canonicalise(v.v) };
    case "dict": {
      const entries = (Array.isArray(v.v) ? v.v : []).map(canonicalise) as unknown[];
      return { t: "dict", v: sortByJson(entries) };
    }
    case "set":
      return { t: "set", v: sortByJson((Array.isArray(v.v) ? v.v : []).map(canonicalise)) };
    default: {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = canonicalise(x);
      return out;
    }
  }
}

function numberKey(raw: unknown): string {
  const text = String(raw);
  if (/^-?\d+$/.test(text) && text.replace("-", "").length > 15) return text;
  const n = Number(text);
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 53) return String(n);
  return String(Number(n.toPrecision(12)));
}

function sortByJson(xs: unknown[]): unknown[] {
  return xs
    .map((x) => [stableJson(x), x] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((p) => p[1]);
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** Whether an observation is an exception (raised by the checked expression, or ending the test). */
export function isRaised(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Tagged).t === "raised";
}

/** A short human-readable form of an observed value, for findings and reports. */
export function describeValue(value: unknown, limit = 120): string {
  const text = describe(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function describe(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (Array.isArray(value)) return value.map(describe).join(", ");
  if (value === null || typeof value !== "object") return String(value);
  const v = value as Tagged;
  const inner = (x: unknown) => describe(x);
  switch (v.t) {
    case "none":
      return "None";
    case "null":
    case "undefined":
      return String(v.t);
    case "bool":
      return String(v.v);
    case "int":
    case "float":
    case "num":
    case "bigint":
    case "complex":
      return String(v.v);
    case "str":
      return JSON.stringify(v.v);
    case "bytes":
      return `bytes(${v.v})`;
    case "list":
      return `[${(v.v as unknown[]).map(inner).join(", ")}]`;
    case "tuple":
      return `(${(v.v as unknown[]).map(inner).join(", ")})`;
    case "set":
      return `{${(v.v as unknown[]).map(inner).join(", ")}}`;
    case "dict":
      return `{${(v.v as [unknown, unknown][]).map(([k, x]) => `${inner(k)}: ${inner(x)}`).join(", ")}}`;
    case "object":
      return `${v.class ?? "object"}(${Object.entries((v.v ?? {}) as Record<string, unknown>)
        .map(([k, x]) => `${k}=${inner(x)}`)
        .join(", ")})`;
    case "raised":
      return `raises ${v.type}`;
    case "error":
      return `${v.type}(${JSON.stringify(v.message ?? "")})`;
    case "returned":
      return `returns ${inner(v.v)}`;
    case "operands":
      return (v.v as unknown[]).map(inner).join(" vs ");
    case "ok":
      return "completes";
    case "enum":
      return `${v.class}.${v.v}`;
    case "datetime":
    case "scalar":
      return `${v.class}(${v.v})`;
    case "repr":
      return String(v.v);
    case "digest":
      return `${String(v.head)}… (sha256 ${String(v.sha).slice(0, 12)})`;
    default:
      return v.v === undefined ? String(v.t) : `${v.t}(${inner(v.v)})`;
  }
}
