import { globToRegExp } from "./compile.js";

const cache = new Map();

function compiled(pattern, options) {
  const key = `${options.dot ? 1 : 0}${options.nocase ? 1 : 0}:${pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = globToRegExp(pattern, options);
    if (cache.size > 500) cache.clear();
    cache.set(key, re);
  }
  return re;
}

function normalizePath(path) {
  return path.replace(/\\/g, "/").replace(/^(?:\.\/)+/, "");
}

/**
 * True when `path` matches the pattern(s). In a list, patterns starting with "!" exclude, and the last
 * pattern that matches decides.
 * @param {string} path
 * @param {string | string[]} patterns
 * @param {{ dot?: boolean, nocase?: boolean }} [options]
 */
export function isMatch(path, patterns, options = {}) {
  const target = normalizePath(path);
  let matched = false;
  for (const raw of Array.isArray(patterns) ? patterns : [patterns]) {
    const negated = raw.startsWith("!");
    const pattern = negated ? raw.slice(1) : raw;
    if (compiled(pattern, options).test(target)) matched = !negated;
  }
  return matched;
}

/** A predicate for repeated matching against the same patterns. */
export function matcher(patterns, options = {}) {
  return (path) => isMatch(path, patterns, options);
}

/** The paths that match, in their original order. */
export function filter(paths, patterns, options = {}) {
  return paths.filter(matcher(patterns, options));
}
