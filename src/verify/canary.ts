import { randomBytes, randomInt } from "node:crypto";
import { posix } from "node:path";

/**
 * Canary tests, added to every test run with random names (security.md §5.3, D3/D4):
 * - a **must-pass** test (catches runs that fail everything, or a report that is not this run's);
 * - **must-fail** tests with a random message, one per forgery channel: a plain `assert` on ints
 *   (pytest's assertion rewriting or an outcome-rewriting hook turns it green), and one through the
 *   library assertion API that candidates monkeypatch (`unittest.TestCase.assertEqual`, node's
 *   `assert.strictEqual`) plus, for node, a bare `throw` (a patched test harness).
 * A must-fail canary reported as passed, or missing from a report that claims success, means the
 * result is forged. Names are 12 random hex digits with no fixed prefix, so a blanket "make every
 * test pass except gagar's" hook has nothing to match on.
 *
 * Python canaries live in a test file of their own in each directory that holds graded tests, so
 * that a conftest dropped into any of those directories reaches a canary too. JavaScript canaries sit
 * in a wrapper module that first imports the test file, so they run in the same process as the tests
 * and see the same monkeypatching (node:test runs every file in its own process).
 */

export interface CanaryCheck {
  /** Test id in the run's id space (pytest node id, or `<test file>::<name>` for node). */
  id: string;
  expect: "pass" | "fail";
  /** Text the failure message must contain (must-fail canaries). */
  message?: string;
}

export interface CanaryFile {
  /** Workspace-relative path. */
  path: string;
  content: string;
  checks: CanaryCheck[];
}

export function nonce(): string {
  return randomBytes(6).toString("hex");
}

function ints(): [number, number] {
  const a = randomInt(1000, 1_000_000);
  return [a, a + randomInt(1, 1000)];
}

/** A pytest canary module in `dir` (workspace-relative, "" for the root). */
export function pytestCanary(dir: string): CanaryFile {
  const path = posix.join(dir, `test_${nonce()}.py`);
  const [pass, failAssert, failUnittest] = [nonce(), nonce(), nonce()];
  const [a, b] = ints();
  const [c, d] = ints();
  const [e, f] = ints();
  const m1 = nonce();
  const m2 = nonce();
  const content = [
    "import unittest",
    "",
    "",
    `def test_${pass}():`,
    `    assert ${a} + ${b} == ${a + b}`,
    "",
    "",
    `def test_${failAssert}():`,
    `    assert ${c} == ${d}, "${m1}"`,
    "",
    "",
    `def test_${failUnittest}():`,
    "    try:",
    `        unittest.TestCase().assertEqual(${e}, ${f}, "${m2}")`,
    "    except AssertionError as error:",
    // Re-raised from here so that pytest's report shows this frame only: rendering the failure inside
    // unittest/case.py made pytest parse that whole module (~40 ms per verification, measured). Only
    // AssertionError is caught, so a patched assertEqual that skips or errors still misses "fail".
    "        raise AssertionError(str(error)) from None",
    "",
  ].join("\n");
  return {
    path,
    content,
    checks: [
      { id: `${path}::test_${pass}`, expect: "pass" },
      { id: `${path}::test_${failAssert}`, expect: "fail", message: m1 },
      { id: `${path}::test_${failUnittest}`, expect: "fail", message: m2 },
    ],
  };
}

/** A node:test wrapper beside `testFile` that runs it and the canaries in one process. */
export function nodeCanaryWrapper(testFile: string): CanaryFile {
  const path = posix.join(posix.dirname(testFile), `${nonce()}.test.mjs`);
  const [pass, failAssert, failThrow] = [nonce(), nonce(), nonce()];
  const [a, b] = ints();
  const [c, d] = ints();
  const m1 = nonce();
  const m2 = nonce();
  const content = [
    `import ${JSON.stringify(`./${posix.basename(testFile)}`)};`,
    'import { test } from "node:test";',
    'import assert from "node:assert";',
    "",
    `test(${JSON.stringify(pass)}, () => {`,
    `  assert.strictEqual(${a} + ${b}, ${a + b});`,
    "});",
    `test(${JSON.stringify(failAssert)}, () => {`,
    `  assert.strictEqual(${c}, ${d}, ${JSON.stringify(m1)});`,
    "});",
    `test(${JSON.stringify(failThrow)}, () => {`,
    `  throw new Error(${JSON.stringify(m2)});`,
    "});",
    "",
  ].join("\n");
  return {
    path,
    content,
    checks: [
      { id: `${testFile}::${pass}`, expect: "pass" },
      { id: `${testFile}::${failAssert}`, expect: "fail", message: m1 },
      { id: `${testFile}::${failThrow}`, expect: "fail", message: m2 },
    ],
  };
}
