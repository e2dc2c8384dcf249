const SPECIAL = new Set(["\\", "^", "$", ".", "|", "+", "(", ")", "{", "}", "[", "]", "*", "?", "/"]);
const escapeChar = (c) => (SPECIAL.has(c) ? `\\${c}` : c);

/**
 * Split a glob into tokens:
 *   { type: "globstar", slash }  "**" as a path segment (slash: followed by "/", which it consumes)
 *   { type: "star" } / { type: "any" }  "*" / "?"
 *   { type: "class", negate, body }  "[...]"
 *   { type: "open" } / { type: "alt" } / { type: "close" }  "{", "," inside braces, "}"
 *   { type: "literal", value }
 * Every token records whether it starts a path segment.
 */
function tokenize(pattern) {
  const tokens = [];
  let braces = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    const segmentStart = i === 0 || pattern[i - 1] === "/";
    if (c === "*" && pattern[i + 1] === "*") {
      const slash = pattern[i + 2] === "/";
      tokens.push({ type: "globstar", slash, segmentStart });
      i += slash ? 3 : 2;
      continue;
    }
    if (c === "*") tokens.push({ type: "star", segmentStart });
    else if (c === "?") tokens.push({ type: "any", segmentStart });
    else if (c === "[" && pattern.indexOf("]", i + 2) !== -1) {
      const close = pattern.indexOf("]", i + 2);
      let body = pattern.slice(i + 1, close);
      const negate = body[0] === "!" || body[0] === "^";
      if (negate) body = body.slice(1);
      tokens.push({ type: "class", negate, body, segmentStart });
      i = close + 1;
      continue;
    } else if (c === "{") {
      braces++;
      tokens.push({ type: "open" });
    } else if (c === "}" && braces > 0) {
      braces--;
      tokens.push({ type: "close" });
    } else if (c === "," && braces > 0) tokens.push({ type: "alt" });
    else if (c === "\\" && i + 1 < pattern.length) {
      i++;
      tokens.push({ type: "literal", value: pattern[i] });
    } else tokens.push({ type: "literal", value: c });
    i++;
  }
  if (braces > 0) throw new SyntaxError(`unclosed "{" in glob ${JSON.stringify(pattern)}`);
  return tokens;
}

/** Regex source for one token. */
function emit(token, { dot }) {
  const noDot = !dot && token.segmentStart ? "(?!\\.)" : "";
  switch (token.type) {
    case "globstar":
      return token.slash ? "(?:.*/)?" : ".*";
    case "star":
      return `${noDot}[^/]*`;
    case "any":
      return `${noDot}[^/]`;
    case "class": {
      const body = token.body.replace(/[\\\]^]/g, "\\$&");
      return token.negate ? `[^/${body}]` : `[${body}]`;
    }
    case "open":
      return "(?:";
    case "alt":
      return "|";
    case "close":
      return ")";
    default:
      return escapeChar(token.value);
  }
}

/**
 * Compile a glob pattern into an anchored RegExp.
 * @param {string} pattern
 * @param {{ dot?: boolean, nocase?: boolean }} [options]
 */
export function globToRegExp(pattern, { dot = false, nocase = false } = {}) {
  if (typeof pattern !== "string" || pattern === "") {
    throw new TypeError("pattern must be a non-empty string");
  }
  const source = tokenize(pattern)
    .map((token) => emit(token, { dot }))
    .join("");
  return new RegExp(`^${source}$`, nocase ? "i" : "");
}
