// SemVer 2.0.0 grammar (https://semver.org/#backusnaur-form-grammar-for-valid-semver-versions),
// with an optional leading "v" as commonly found in git tags.
const NUM = "0|[1-9]\\d*";
const PRE_ID = `(?:${NUM}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const SEMVER = new RegExp(
  `^v?(${NUM})\\.(${NUM})\\.(${NUM})` +
    `(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?` +
    `(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$`,
);

export class SemVerError extends TypeError {
  constructor(message) {
    super(message);
    this.name = "SemVerError";
  }
}

/** Parse a version string into its parts; prerelease and build identifiers stay strings. */
export function parse(version) {
  if (typeof version !== "string") {
    throw new SemVerError(`Invalid version: expected a string, got ${typeof version}`);
  }
  const m = SEMVER.exec(version.trim());
  if (!m) throw new SemVerError(`Invalid version: ${JSON.stringify(version)}`);
  const [major, minor, patch] = [m[1], m[2], m[3]].map(Number);
  if (![major, minor, patch].every(Number.isSafeInteger)) {
    throw new SemVerError(`Invalid version: ${JSON.stringify(version)} (number too large)`);
  }
  return {
    major,
    minor,
    patch,
    prerelease: m[4] ? m[4].split(".") : [],
    build: m[5] ? m[5].split(".") : [],
  };
}

export function format(v) {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length) s += `-${v.prerelease.join(".")}`;
  if (v.build.length) s += `+${v.build.join(".")}`;
  return s;
}

/** The normalized version string, or null when `version` is not valid SemVer. */
export function valid(version) {
  try {
    return format(parse(version));
  } catch (err) {
    if (err instanceof SemVerError) return null;
    throw err;
  }
}
