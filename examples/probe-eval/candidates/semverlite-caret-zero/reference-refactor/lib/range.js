"use strict";

const { parse, compare } = require("./version");

/** The first version a caret range no longer allows. */
function caretUpper(v) {
  // The left-most non-zero part may not change.
  if (v.major > 0) return { major: v.major + 1, minor: 0, patch: 0 };
  if (v.minor > 0) return { major: 0, minor: v.minor + 1, patch: 0 };
  return { major: 0, minor: 0, patch: v.patch + 1 };
}

/** The first version a tilde range no longer allows. */
function tildeUpper(v) {
  return { major: v.major, minor: v.minor + 1, patch: 0 };
}

function comparators(token) {
  if (token.startsWith("^")) {
    const v = parse(token.slice(1));
    return [[">=", v], ["<", caretUpper(v)]];
  }
  if (token.startsWith("~")) {
    const v = parse(token.slice(1));
    return [[">=", v], ["<", tildeUpper(v)]];
  }
  const match = /^(>=|<=|>|<|=)?(.+)$/.exec(token);
  return [[match[1] || "=", parse(match[2])]];
}

/** Whether a comparison result (negative, zero, positive) meets each operator. */
const TESTS = Object.freeze({
  ">=": (order) => order >= 0,
  "<=": (order) => order <= 0,
  ">": (order) => order > 0,
  "<": (order) => order < 0,
  "=": (order) => order === 0,
});

/** Whether `version` is in `range`: comparator sets joined by "||", comparators by spaces. */
function satisfies(version, range) {
  const v = parse(version);
  return range.split("||").some((set) =>
    set
      .trim()
      .split(/\s+/)
      .flatMap(comparators)
      .every(([op, bound]) => TESTS[op](compare(v, bound))),
  );
}

/** The highest of `versions` in `range`, or null. */
function maxSatisfying(versions, range) {
  let best = null;
  let bestParsed = null;
  for (const candidate of versions) {
    if (!satisfies(candidate, range)) continue;
    const parsed = parse(candidate);
    if (bestParsed === null || compare(parsed, bestParsed) > 0) {
      best = candidate;
      bestParsed = parsed;
    }
  }
  return best;
}

module.exports = { satisfies, maxSatisfying };
