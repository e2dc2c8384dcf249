/**
 * Which hidden code files are test modules — files that declare tests — as opposed to the other code
 * a test patch brings (fixtures, helpers, executable scripts a test hands to the code under test).
 * Starting a process on a test module runs the tests again (test-reexec); starting an executable
 * fixture does not: a CLI library's tests hand it `tests/fixtures/<program>` to run all the time.
 *
 * Decided from the text, generously: a file that may declare a test counts as one.
 */

/** A test declared in Python: a `test…` function or a `Test…` class (pytest's and unittest's rules). */
const PY_TEST = /^[ \t]*(?:async[ \t]+)?def[ \t]+test|^[ \t]*class[ \t]+\w*Test|\bunittest\b|\bdoctest\b/m;

/**
 * A test declared in JavaScript or TypeScript: a call of a runner's declaring function (not a method
 * such as `regex.test(s)`), or an import of a test framework.
 */
const JS_TEST =
  /(?<![\w$.])(?:describe|it|test|suite|context|specify|bench|xit|xdescribe|fit|fdescribe)(?:\.\w+)*\s*(?:\(|`)|(?:require\s*\(\s*|from\s*|import\s*\(?\s*)["'](?:node:test|vitest|@jest\/globals|mocha|ava|tap|uvu|@playwright\/test)["'/]/;

export function declaresTests(path: string, text: string): boolean {
  return (path.endsWith(".py") ? PY_TEST : JS_TEST).test(text);
}
