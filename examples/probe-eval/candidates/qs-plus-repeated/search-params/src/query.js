// Query strings (application/x-www-form-urlencoded) to plain objects and back.

/**
 * `parseQuery("?page=2&sort=name")` is `{ page: "2", sort: "name" }`. A key without `=` gets "".
 */
export function parseQuery(input) {
  if (typeof input !== "string") throw new TypeError("query must be a string");
  // URLSearchParams implements the form encoding: "+" is a space, repeated keys are kept in order.
  const params = new URLSearchParams(input);
  const result = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    result[key] = values.length === 1 ? values[0] : values;
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
