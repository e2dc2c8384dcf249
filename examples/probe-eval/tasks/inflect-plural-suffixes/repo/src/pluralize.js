// English plurals for UI labels ("3 files", "1 day"). Not a full inflector: regular rules, a few
// irregular nouns and nouns without a plural.

const IRREGULAR = new Map([
  ["person", "people"],
  ["child", "children"],
  ["mouse", "mice"],
  ["foot", "feet"],
  ["tooth", "teeth"],
]);

const UNCOUNTABLE = new Set(["sheep", "fish", "series", "species", "information", "rice"]);

/** Gives `word` the case of `source`: all caps, capitalised or as is. */
function matchCase(source, word) {
  if (source.length > 1 && source === source.toUpperCase()) return word.toUpperCase();
  if (source[0] === source[0].toUpperCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

export function plural(word) {
  if (typeof word !== "string") throw new TypeError("word must be a string");
  if (word === "") return "";
  const lower = word.toLowerCase();
  if (UNCOUNTABLE.has(lower)) return word;
  if (IRREGULAR.has(lower)) return matchCase(word, IRREGULAR.get(lower));
  let result;
  if (lower.endsWith("y")) result = `${lower.slice(0, -1)}ies`;
  else if (lower.endsWith("s")) result = `${lower}es`;
  else result = `${lower}s`;
  return matchCase(word, result);
}

/** `pluralize("file", 3)` is "files"; with `{ inclusive: true }` it is "3 files". */
export function pluralize(word, count, { inclusive = false } = {}) {
  const form = count === 1 ? word : plural(word);
  return inclusive ? `${count} ${form}` : form;
}
