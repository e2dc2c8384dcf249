const SPECIAL = new Set(["\\", "^", "$", ".", "|", "+", "(", ")", "{", "}", "[", "]", "*", "?", "/"]);
const escapeChar = (c) => (SPECIAL.has(c) ? `\\${c}` : c);

/**
 * Compile a glob pattern into an anchored RegExp.
 * @param {string} pattern
 * @param {{ dot?: boolean, nocase?: boolean }} [options]
 */
export function globToRegExp(pattern, { dot = false, nocase = false } = {}) {
  if (typeof pattern !== "string" || pattern === "") {
    throw new TypeError("pattern must be a non-empty string");
  }
  let re = "";
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    // Wildcards at the start of a path segment must not match a leading "." unless `dot` is set.
    const noDot = !dot && (i === 0 || pattern[i - 1] === "/") ? "(?!\\.)" : "";
    switch (c) {
      case "*":
        if (pattern[i + 1] === "*") {
          // globstar: any characters, across directories
          re += ".*";
          i++;
        } else {
          re += `${noDot}[^/]*`;
        }
        break;
      case "?":
        re += `${noDot}[^/]`;
        break;
      case "[": {
        const close = pattern.indexOf("]", i + 2);
        if (close === -1) {
          re += "\\[";
          break;
        }
        let body = pattern.slice(i + 1, close);
        const negate = body[0] === "!" || body[0] === "^";
        if (negate) body = body.slice(1);
        body = body.replace(/[\\\]^]/g, "\\$&");
        re += negate ? `[^/${body}]` : `[${body}]`;
        i = close;
        break;
      }
      case "{":
        braces++;
        re += "(?:";
        break;
      case "}":
        if (braces > 0) {
          braces--;
          re += ")";
        } else {
          re += "\\}";
        }
        break;
      case ",":
        re += braces > 0 ? "|" : ",";
        break;
      case "\\":
        i++;
        re += i < pattern.length ? escapeChar(pattern[i]) : "\\\\";
        break;
      default:
        re += escapeChar(c);
    }
  }
  if (braces > 0) throw new SyntaxError(`unclosed "{" in glob ${JSON.stringify(pattern)}`);
  return new RegExp(`^${re}$`, nocase ? "i" : "");
}
