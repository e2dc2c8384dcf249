import { codePoints } from "./normalize.js";

/**
 * Shorten `text` to at most `max` characters (code points), ending with `ellipsis` when cut.
 * With `wordBoundary` the cut happens at the last space that fits, when there is one.
 */
export function truncate(text, max, { ellipsis = "…", wordBoundary = true } = {}) {
  const chars = codePoints(text);
  const room = max - codePoints(ellipsis).length;
  if (room < 0) throw new RangeError(`max (${max}) is shorter than the ellipsis`);
  if (chars.length <= max) return text;
  let cut = chars.slice(0, room).join("");
  if (wordBoundary) {
    const space = cut.lastIndexOf(" ");
    if (space > 0) cut = cut.slice(0, space);
  }
  return cut.trimEnd() + ellipsis;
}
