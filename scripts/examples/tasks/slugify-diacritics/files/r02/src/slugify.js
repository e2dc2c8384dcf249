const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Latin letters that Unicode does not decompose into a base letter plus combining marks.
const TRANSLITERATIONS = {
  ß: "ss",
  ẞ: "SS",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  þ: "th",
  Þ: "TH",
};
const UNDECOMPOSABLE = new RegExp(`[${Object.keys(TRANSLITERATIONS).join("")}]`, "g");

/** Replace accented Latin letters by their ASCII base letters ("é" → "e", "ß" → "ss"). */
function removeDiacritics(text) {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(UNDECOMPOSABLE, (c) => TRANSLITERATIONS[c]);
}

/**
 * Turn a title into a URL slug.
 * @param {string} text
 * @param {{ separator?: string, lowercase?: boolean, maxLength?: number }} [options]
 */
export function slugify(text, { separator = "-", lowercase = true, maxLength = Infinity } = {}) {
  if (typeof text !== "string") throw new TypeError("slugify() expects a string");
  if (/[a-z0-9]/i.test(separator)) throw new TypeError("separator must not contain letters or digits");
  const sep = escapeRegExp(separator);

  let slug = removeDiacritics(text.trim());
  if (lowercase) slug = slug.toLowerCase();
  // Everything that is not an ASCII letter or digit separates words.
  slug = slug.replace(/[^a-zA-Z0-9]+/g, separator);
  slug = slug.replace(new RegExp(`^(?:${sep})+|(?:${sep})+$`, "g"), "");

  if (slug.length > maxLength) {
    slug = slug.slice(0, maxLength);
    // Do not end in the middle of a word when a separator is available.
    const lastSep = slug.lastIndexOf(separator);
    if (lastSep > 0) slug = slug.slice(0, lastSep);
  }
  return slug;
}
