import { collapseNonAlphanumeric, cutAtSeparator, stripDiacritics, trimSeparator } from "./normalize.js";

const DEFAULTS = { separator: "-", lowercase: true, maxLength: Infinity };

function validate(text, separator) {
  if (typeof text !== "string") throw new TypeError("slugify() expects a string");
  if (/[a-z0-9]/i.test(separator)) throw new TypeError("separator must not contain letters or digits");
}

/**
 * Turn a title into a URL slug.
 * @param {string} text
 * @param {{ separator?: string, lowercase?: boolean, maxLength?: number }} [options]
 */
export function slugify(text, options = {}) {
  const { separator, lowercase, maxLength } = { ...DEFAULTS, ...options };
  validate(text, separator);
  const steps = [
    (s) => s.trim(),
    stripDiacritics,
    (s) => (lowercase ? s.toLowerCase() : s),
    (s) => collapseNonAlphanumeric(s, separator),
    (s) => trimSeparator(s, separator),
    (s) => cutAtSeparator(s, maxLength, separator),
  ];
  return steps.reduce((value, step) => step(value), text);
}
