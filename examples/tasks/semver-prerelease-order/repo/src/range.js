import { compare } from "./compare.js";
import { parse } from "./parse.js";

const ANY = [];

// "1", "1.2", "1.x", "1.2.*" → the lower bound and the exclusive upper bound they stand for.
function xRange(text) {
  const parts = text.replace(/^v/, "").split(".");
  const wild = (p) => p === undefined || p === "x" || p === "X" || p === "*";
  if (wild(parts[0])) return ANY;
  const major = Number(parts[0]);
  if (wild(parts[1])) return [[">=", `${major}.0.0`], ["<", `${major + 1}.0.0`]];
  const minor = Number(parts[1]);
  if (wild(parts[2])) return [[">=", `${major}.${minor}.0`], ["<", `${major}.${minor + 1}.0`]];
  return null; // a full version
}

function caret(text) {
  const v = parse(text);
  let upper;
  if (v.major > 0) upper = `${v.major + 1}.0.0`;
  else if (v.minor > 0) upper = `0.${v.minor + 1}.0`;
  else upper = `0.0.${v.patch + 1}`;
  return [[">=", text], ["<", upper]];
}

function tilde(text) {
  const v = parse(text);
  return [[">=", text], ["<", `${v.major}.${v.minor + 1}.0`]];
}

function comparators(token) {
  if (token === "*" || token === "") return ANY;
  if (token.startsWith("^")) return caret(token.slice(1));
  if (token.startsWith("~")) return tilde(token.slice(1));
  const m = /^(>=|<=|>|<|=)?\s*(.+)$/.exec(token);
  const op = m[1] ?? "=";
  const x = xRange(m[2]);
  if (x === null) return [[op, m[2]]];
  if (op !== "=") throw new TypeError(`Unsupported range: ${token}`);
  return x;
}

const TESTS = {
  "=": (c) => c === 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
};

/** True when `version` matches `range` (space-separated comparators, alternatives joined by "||"). */
export function satisfies(version, range) {
  return range.split("||").some((alternative) => {
    const tokens = alternative
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/);
    return tokens.flatMap(comparators).every(([op, bound]) => TESTS[op](compare(version, bound)));
  });
}
