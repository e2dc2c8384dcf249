/**
 * Minimal glob matching for `task.json` `protectedPaths` (Node 20 has no `path.matchesGlob`).
 *
 * Semantics, on `/`-separated paths relative to the repository root:
 * - `*` matches any run of characters except `/`; `?` one character except `/`;
 * - `**` as a whole segment matches zero or more segments (`**\/conftest.py` matches `conftest.py` too);
 * - a pattern without `/` matches the basename at any depth (gitignore-like), so `conftest.py`
 *   protects every conftest;
 * - a pattern ending in `/` protects everything under that directory.
 * Everything else is literal. No braces or character classes: protection lists should be explicit.
 */
export function globToRegExp(pattern: string): RegExp {
  let p = pattern.replace(/^\.\//, "");
  let dirOnly = false;
  if (p.endsWith("/")) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  const anyDepth = !p.includes("/");
  const segments = p.split("/");
  let source = "";
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      source += last ? ".*" : "(?:[^/]+/)*";
      return;
    }
    source += segment
      .split("")
      .map((ch) => (ch === "*" ? "[^/]*" : ch === "?" ? "[^/]" : escapeChar(ch)))
      .join("");
    if (!last) source += "/";
  });
  const prefix = anyDepth ? "(?:.*/)?" : "";
  const suffix = dirOnly ? "/.+" : "(?:/.+)?";
  return new RegExp(`^${prefix}${source}${suffix}$`);
}

function escapeChar(ch: string): string {
  return /[.+^${}()|[\]\\]/.test(ch) ? `\\${ch}` : ch;
}

/** True when `path` matches any of `patterns` (see globToRegExp). */
export function matchesAny(path: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((re) => re.test(path));
}
