import type { JunitCase } from "../verdict/junit-report.ts";

/**
 * Test ids of the JavaScript runners: `<file>::<describe> > <nested describe> > <test name>`
 * (`<file>::<name>` for a top-level test), with `<file>` relative to the workspace root. A name that
 * itself contains ` > ` still matches exactly as long as the task spells it the same way.
 */
export function jsId(file: string, titles: readonly string[]): string {
  return `${file}::${titles.join(" > ")}`;
}

/** The file part of an id (before `::`), or null for an id without one (mocha's full titles, see mocha.ts). */
export function fileOfId(id: string): string | null {
  const at = id.indexOf("::");
  return at > 0 ? id.slice(0, at) : null;
}

export const JS_TEST_FILE =
  /(^|\/)(tests?\/.*\.[cm]?[jt]sx?|__tests__\/.*\.[cm]?[jt]sx?|[^/]*[._-](test|spec)\.[cm]?[jt]sx?|test-[^/]*\.[cm]?[jt]sx?|test\.[cm]?[jt]sx?)$/;

export function checkJsId(id: string): string | null {
  return fileOfId(id) ? null : "a JavaScript test id is <file>::<describe> > <test name>";
}

/** Whether a test file is an ES module a wrapper must `import` (the package type is not read: .mjs/.mts only). */
export function isEsm(file: string): boolean {
  return /\.m[jt]s$/.test(file);
}

/** A case's titles from a report that nests describe blocks as <testsuite>s (node:test). */
export function suiteTitles(c: JunitCase): string[] {
  return [...c.suites, c.name].map((n) => n.replaceAll("&quot;", '"'));
}
