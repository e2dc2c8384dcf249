import type { FileView } from "./candidate-view.ts";

/**
 * Assertions made through a test-context parameter, the style of tape, node-tap and ava:
 * `test("x", (t) => { t.equal(a, b); t.deepEqual(c, d); })`, with subtests as
 * `t.test("y", function (st) { st.ok(v); })`. Unlike `assert…`/`expect(…)`, nothing in the line says
 * "assertion" except that a method of the callback's parameter is called, so the parameter names
 * are read from the file's test headers (`test(…, function (t)`, `(st) =>`, `async t =>`), and the
 * conventional names `t`, `st` and `tt` are assumed when the patch shows no header (a hunk deep
 * inside a long test). Only assertion methods count: `t.end()`, `t.plan(n)`, `t.teardown(…)` or
 * `t.context` are bookkeeping, and deleting them weakens nothing by itself.
 */
export interface TestContextAssertions {
  /** Whether the line calls an assertion method on a test-context parameter. */
  isAssertion(text: string): boolean;
  /** Whether the line opens a subtest on a test-context parameter (`t.test("…", …)`). */
  isSubtest(text: string): boolean;
}

const CONVENTIONAL = ["t", "st", "tt"];

/** Assertion methods of tape, node-tap and ava (and their aliases). */
const METHODS = [
  "equal",
  "equals",
  "isEqual",
  "strictEqual",
  "strictEquals",
  "notEqual",
  "notEquals",
  "notStrictEqual",
  "isNotEqual",
  "doesNotEqual",
  "deepEqual",
  "deepEquals",
  "isEquivalent",
  "same",
  "notDeepEqual",
  "notSame",
  "deepLooseEqual",
  "notDeepLooseEqual",
  "looseEqual",
  "notLooseEqual",
  "strictSame",
  "strictNotSame",
  "strictDeepEqual",
  "ok",
  "notOk",
  "true",
  "false",
  "truthy",
  "falsy",
  "is",
  "not",
  "isNot",
  "assert",
  "like",
  "notLike",
  "has",
  "hasStrict",
  "notHas",
  "hasProp",
  "hasProps",
  "match",
  "notMatch",
  "doesNotMatch",
  "regex",
  "notRegex",
  "throws",
  "throwsAsync",
  "doesNotThrow",
  "notThrows",
  "notThrowsAsync",
  "rejects",
  "resolves",
  "resolveMatch",
  "error",
  "ifError",
  "ifErr",
  "iferror",
  "fail",
  "type",
  "snapshot",
  "matchSnapshot",
].join("|");

/**
 * The parameter of a test callback: `test(…, function (t)`, `it(…, (t) =>`, `t.test(…, async st =>`.
 * The callback is the last argument on the header line, so its parameter is right before `{` / `=>`.
 */
const HEADER =
  /\b(?:test|it|\w+\.test|\w+\.serial|subtest)\s*\(.*?(?:function\s*\w*\s*\(\s*([A-Za-z_$][\w$]*)\s*\)|\(\s*([A-Za-z_$][\w$]*)\s*\)\s*=>|(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>)/;

export function testContextAssertions(file: FileView): TestContextAssertions {
  const names = new Set(CONVENTIONAL);
  for (const hunk of file.hunks)
    for (const line of hunk.lines) {
      const m = HEADER.exec(line.text);
      const name = m?.[1] ?? m?.[2] ?? m?.[3];
      if (name) names.add(name);
    }
  const context = `(?:${[...names].map(escapeRegExp).sort().join("|")})`;
  const assertion = new RegExp(`(?<![\\w$.])${context}\\.(?:${METHODS})\\s*\\(`);
  const subtest = new RegExp(`(?<![\\w$.])${context}\\.test\\s*\\(`);
  return {
    isAssertion: (text) => assertion.test(text),
    isSubtest: (text) => subtest.test(text),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[$]/g, "\\$&");
}
