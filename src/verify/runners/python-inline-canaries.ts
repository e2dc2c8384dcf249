import { randomInt } from "node:crypto";
import { pytestKey } from "../verdict/test-ids.ts";
import { nonce } from "./canary.ts";
import { capitalize, type InlineCanaries, MAX_PER_FILE, uniqueName, wordsOf } from "./inline-canaries.ts";
import type { CanaryCheck } from "./types.ts";

// Inline canaries for pytest modules (the concept: inline-canaries.ts).

const PY_FROM = /^from\s+(\.*[A-Za-z_][\w.]*)\s+import\s+\(?([^)#\n]+)\)?/gm;
const PY_IMPORT = /^import\s+([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/gm;
const PY_TEST_NAME = /^\s*def\s+(test\w*)\s*\(/gm;
/**
 * What a module applies to every test it holds, canaries appended to it included: its `pytestmark`
 * (a skipif for a missing tool, an xfail, a fixture), and skipping the whole module (a top-level
 * `importorskip`, `pytest.skip(..., allow_module_level=True)`). Such a module honestly reports a
 * must-fail canary skipped or xfailed, which the verdict reads as forgery (attrs' test_pyright.py skips
 * itself without pyright), so it gets none; the directory's canary module still runs beside it. Only
 * the hidden test's own text decides this, which a candidate cannot change.
 */
const MODULE_WIDE = [
  /^pytestmark\s*(?::[^=\n]*)?=(?!=)/m,
  /^(?![\s#])[^\n]*\bimportorskip\(/m,
  /\ballow_module_level\s*=\s*True\b/,
];
const UNITTEST_METHODS: Record<string, (s: string, m: string) => string> = {
  assertEqual: (s, m) => `self.assertEqual(${s}, "${nonce()}", "${m}")`,
  assertEquals: (s, m) => `self.assertEqual(${s}, "${nonce()}", "${m}")`,
  assertTrue: (s, m) => `self.assertTrue(${s} == "${nonce()}", "${m}")`,
  assertFalse: (s, m) => `self.assertFalse(${s} is ${s}, "${m}")`,
  assertIs: (s, m) => `self.assertIs(${s}, "${nonce()}", "${m}")`,
  assertIsNone: (s, m) => `self.assertIsNone(${s}, "${m}")`,
  assertIn: (s, m) => `self.assertIn("${nonce()}", [${s}], "${m}")`,
  assertIsInstance: (s, m) => `self.assertIsInstance(${s}, type("${nonce()}", (), {}), "${m}")`,
  assertDictEqual: (s, m) => `self.assertDictEqual({"${nonce()}": ${s}}, {}, "${m}")`,
  assertListEqual: (s, m) => `self.assertListEqual([${s}], [], "${m}")`,
  assertAlmostEqual: (s, m) => `self.assertAlmostEqual(len([${s}]), 3, msg="${m}")`,
};

/**
 * Canaries for a pytest module. `repositoryModules` are the repository's top-level module names: names
 * imported from them (or from relative imports) are the code under test.
 */
export function pythonInlineCanaries(
  file: string,
  content: string,
  repositoryModules: ReadonlySet<string>,
): InlineCanaries | null {
  const subjects = pythonSubjects(content, repositoryModules);
  const tests = [...content.matchAll(PY_TEST_NAME)].map((m) => m[1]!);
  // A module whose tests are not named test_* follows a project's own python_functions; a canary
  // named test_* might not be collected there, and a missing canary reads as forgery.
  if (subjects.length === 0 || !tests.some((t) => t.startsWith("test_"))) return null;
  if (MODULE_WIDE.some((pattern) => pattern.test(content))) return null;
  const words = wordsOf(
    tests.map((t) => t.replace(/^test_?/, "")),
    "_",
  );
  // Names the module already binds: its functions and classes, and its module-level variables.
  const taken = new Set([
    ...[...content.matchAll(/^\s*(?:def|class)\s+(\w+)/gm)].map((m) => m[1]!),
    ...[...content.matchAll(/^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm)].map((m) => m[1]!),
  ]);
  const name = (prefix: string) => uniqueName(words, taken, (w) => `${prefix}${w.join("_")}`);
  const blocks: string[] = [];
  const checks: CanaryCheck[] = [];
  const check = (id: string, message?: string) =>
    checks.push({ id, key: pytestKey(id), expect: "fail", ...(message && { message }) });

  const subject = () => subjects[randomInt(subjects.length)]!;
  const assertName = name("test_");
  const m1 = nonce();
  blocks.push(`def ${assertName}():\n    assert ${subject()} == "${nonce()}", "${m1}"\n`);
  check(`${file}::${assertName}`, m1);

  const raises = pytestRaises(content);
  if (raises) {
    const raisesName = name("test_");
    blocks.push(`def ${raisesName}():\n    with ${raises}(ZeroDivisionError):\n        ${subject()}\n`);
    check(`${file}::${raisesName}`);
  }

  const base = unittestBase(content);
  if (base) {
    const used = Object.keys(UNITTEST_METHODS).filter((method) =>
      new RegExp(`\\bself\\.${method}\\(`).test(content),
    );
    if (used.length) {
      const cls = uniqueName(words, taken, (w) => `Test${w.map(capitalize).join("")}`);
      const methods = used.slice(0, MAX_PER_FILE - blocks.length).map((method) => {
        const test = name("test_");
        const message = nonce();
        check(`${file}::${cls}::${test}`, message);
        return `    def ${test}(self):\n        ${UNITTEST_METHODS[method]!(subject(), message)}\n`;
      });
      blocks.push(`class ${cls}(${base}):\n${methods.join("\n")}`);
    }
  }
  const text = content.endsWith("\n") ? content : `${content}\n`;
  return { content: `${text}\n\n${blocks.join("\n\n")}`, checks };
}

/** Names the module binds at its top level from the code under test. */
function pythonSubjects(content: string, repositoryModules: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  const underTest = (module: string) =>
    module.startsWith(".") || repositoryModules.has(module.split(".")[0]!);
  for (const m of content.matchAll(PY_FROM)) {
    if (!underTest(m[1]!)) continue;
    for (const part of m[2]!.split(",")) {
      const bound = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
      if (bound && bound[1] !== "*") names.add(bound[2] ?? bound[1]!);
    }
  }
  for (const m of content.matchAll(PY_IMPORT)) {
    if (!underTest(m[1]!)) continue;
    names.add(m[2] ?? m[1]!.split(".")[0]!);
  }
  return [...names];
}

/** How the module calls pytest.raises, when it uses it and binds it at the top level. */
function pytestRaises(content: string): string | null {
  if (/^import pytest\s*$/m.test(content) && /\bpytest\.raises\(/.test(content)) return "pytest.raises";
  if (/^from pytest import [^\n]*\braises\b/m.test(content) && /(?<![.\w])raises\(/.test(content))
    return "raises";
  return null;
}

/** The expression naming unittest's TestCase in the module, when it defines TestCase classes. */
function unittestBase(content: string): string | null {
  if (/^import unittest\s*$/m.test(content) && /\(\s*unittest\.TestCase\s*\)/.test(content))
    return "unittest.TestCase";
  if (/^from unittest import [^\n]*\bTestCase\b/m.test(content) && /\(\s*TestCase\s*\)/.test(content))
    return "TestCase";
  return null;
}
