/**
 * For the unsandboxed backend, which cannot mount anything: rewrites sandbox paths (/workspace, /out,
 * read-only bind targets) in argv and environment values to the host paths they stand for, so the
 * verifier's commands (`pytest --junitxml=/out/report.xml /workspace/tests`) still work. A prefix is
 * rewritten where a path starts: at the start of the string or after `=`, `:`, `,` or whitespace, and
 * only when followed by `/` or the end. Best effort by nature: a program that builds paths itself
 * still sees the host layout.
 */
export function translatePaths(value: string, table: ReadonlyMap<string, string>): string {
  const prefixes = [...table.keys()].sort((a, b) => b.length - a.length);
  if (prefixes.length === 0) return value;
  const alternatives = prefixes.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const pattern = new RegExp(`(^|[=:,\\s])(${alternatives})(?=/|$|[:,\\s])`, "g");
  return value.replace(pattern, (_match, lead: string, prefix: string) => `${lead}${table.get(prefix)}`);
}
