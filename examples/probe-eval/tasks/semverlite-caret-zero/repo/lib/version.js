"use strict";

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)$/;

/** "1.2.3" → { major: 1, minor: 2, patch: 3 }; a leading "v" is allowed. */
function parse(text) {
  const match = VERSION.exec(String(text).trim());
  if (!match) throw new TypeError(`Invalid version: ${text}`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

function compare(a, b) {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

module.exports = { parse, compare };
