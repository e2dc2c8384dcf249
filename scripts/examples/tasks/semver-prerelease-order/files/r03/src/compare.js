import { parse } from "./parse.js";

const NUMERIC = /^\d+$/;

/** Parse strings, pass parsed versions through. */
function toVersion(v) {
  return typeof v === "string" ? parse(v) : v;
}

/** -1, 0 or 1 for two plain values. */
function cmp(a, b) {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** Precedence of two pre-release identifiers (SemVer §11.4.1–11.4.3). */
function compareIdentifier(x, y) {
  const xNumeric = NUMERIC.test(x);
  const yNumeric = NUMERIC.test(y);
  if (xNumeric && yNumeric) return cmp(Number(x), Number(y));
  if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
  return cmp(x, y);
}

/** Precedence of two identifier lists; an empty list (a release) ranks above any pre-release. */
function comparePrerelease(a, b) {
  if (a.length === 0 || b.length === 0) return cmp(b.length, a.length);
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const result = compareIdentifier(a[i], b[i]);
    if (result !== 0) return result;
  }
  return cmp(a.length, b.length);
}

/** -1, 0 or 1 by SemVer precedence; build metadata is ignored. */
export function compare(a, b) {
  const va = toVersion(a);
  const vb = toVersion(b);
  return (
    cmp(va.major, vb.major) ||
    cmp(va.minor, vb.minor) ||
    cmp(va.patch, vb.patch) ||
    comparePrerelease(va.prerelease, vb.prerelease)
  );
}

/** compare() with the arguments swapped. */
export function rcompare(a, b) {
  return compare(b, a);
}

export function gt(a, b) {
  return compare(a, b) > 0;
}

export function gte(a, b) {
  return compare(a, b) >= 0;
}

export function lt(a, b) {
  return compare(a, b) < 0;
}

export function lte(a, b) {
  return compare(a, b) <= 0;
}

export function eq(a, b) {
  return compare(a, b) === 0;
}

export function neq(a, b) {
  return compare(a, b) !== 0;
}

/** A sorted copy, lowest precedence first. */
export function sort(list) {
  return [...list].sort(compare);
}

/** A sorted copy, highest precedence first. */
export function rsort(list) {
  return [...list].sort(rcompare);
}

/** The highest version of the list, or null for an empty list. */
export function max(list) {
  return list.length === 0 ? null : rsort(list)[0];
}
