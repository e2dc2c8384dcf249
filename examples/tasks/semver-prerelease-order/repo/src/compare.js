import { parse } from "./parse.js";

const toVersion = (v) => (typeof v === "string" ? parse(v) : v);

function compareMain(a, b) {
  return Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) || Math.sign(a.patch - b.patch);
}

// SemVer §11: a version without pre-release identifiers has higher precedence than one with them;
// otherwise identifiers are compared left to right and a longer list wins when all else is equal.
function comparePrerelease(a, b) {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return 1;
  if (b.length === 0) return -1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** -1, 0 or 1 by SemVer precedence; build metadata is ignored. */
export function compare(a, b) {
  const va = toVersion(a);
  const vb = toVersion(b);
  return compareMain(va, vb) || comparePrerelease(va.prerelease, vb.prerelease);
}

export const rcompare = (a, b) => compare(b, a);
export const gt = (a, b) => compare(a, b) > 0;
export const gte = (a, b) => compare(a, b) >= 0;
export const lt = (a, b) => compare(a, b) < 0;
export const lte = (a, b) => compare(a, b) <= 0;
export const eq = (a, b) => compare(a, b) === 0;
export const neq = (a, b) => compare(a, b) !== 0;

/** A sorted copy, lowest precedence first. */
export const sort = (list) => [...list].sort(compare);
export const rsort = (list) => [...list].sort(rcompare);

export function max(list) {
  return list.reduce((best, v) => (best === null || gt(v, best) ? v : best), null);
}
