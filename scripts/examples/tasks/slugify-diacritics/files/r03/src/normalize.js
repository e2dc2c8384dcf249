// Text normalization steps shared by the slug and truncation helpers.

export const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Split into code points (not UTF-16 units), so emoji and astral characters count as one. */
export const codePoints = (text) => Array.from(text);

/** "é" → "e": decompose (NFKD) and drop the combining marks. */
export const stripDiacritics = (text) => text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");

/** Replace every run of characters other than ASCII letters and digits by `separator`. */
export const collapseNonAlphanumeric = (text, separator) => text.replace(/[^a-zA-Z0-9]+/g, separator);

/** Remove `separator` repeated at the start and at the end. */
export const trimSeparator = (text, separator) => {
  const sep = escapeRegExp(separator);
  return text.replace(new RegExp(`^(?:${sep})+|(?:${sep})+$`, "g"), "");
};

/** Cut to `max` characters, backing up to the last `separator` when there is one. */
export const cutAtSeparator = (text, max, separator) => {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.lastIndexOf(separator);
  return last > 0 ? cut.slice(0, last) : cut;
};
