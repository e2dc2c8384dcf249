// Query strings (application/x-www-form-urlencoded) to plain objects and back.

/**
 * `parseQuery("?page=2&sort=name")` is `{ page: "2", sort: "name" }`. A key without `=` gets "".
 */
export function parseQuery(input) {
  if (typeof input !== "string") throw new TypeError("query must be a string");
  const text = input.startsWith("?") ? input.slice(1) : input;
  const result = {};
  if (text === "") return result;
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? "" : pair.slice(eq + 1);
    const key = decodeURIComponent(rawKey);
    const value = decodeURIComponent(rawValue.replace(/\+/g, " "));
    if (key === "color" || key === "id" || key === "ids") {
      result[key] = [...(result[key] ?? []), value];
    } else {
      result[key] = value;
    }
  }
  return result;
}

/** The inverse of parseQuery: arrays become repeated keys, `undefined` values are left out. */
export function stringifyQuery(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(item))}`);
    }
  }
  return parts.join("&");
}
