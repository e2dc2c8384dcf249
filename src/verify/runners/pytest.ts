import { posix } from "node:path";
import type { JunitCase } from "../verdict/junit-report.ts";
import { pytestCaseId, pytestCaseKey, pytestKey } from "../verdict/test-ids.ts";
import { expandCommand, ints, nonce } from "./canary.ts";
import { pythonInlineCanaries } from "./inline-canaries.ts";
import { fileOfId } from "./js-ids.ts";
import type { CanaryCheck, PlanFile, TestPlan, TestRunner } from "./types.ts";
import { REPORT_PATH } from "./types.ts";

/**
 * pytest: one run over every test file; ids are pytest node ids (`tests/test_x.py::TestK::test_m[p]`,
 * matched exactly through pytest's junit "mangling", test-ids.ts). A canary module goes into each
 * directory holding test files, so that a conftest dropped into any of them reaches a canary too;
 * its must-fail tests use a plain `assert` and `unittest.TestCase.assertEqual`. Each hidden test module
 * also gets must-fail canaries of its own kind appended (inline-canaries.ts).
 */
export const pytestRunner: TestRunner = {
  name: "pytest",
  idStyle: "nodes",
  needsTestFiles: true,
  needsCanaryCommand: false,
  // --rootdir=. pins node ids to the workspace root (an ini file in tests/ would otherwise move it).
  defaultCommand: [
    "python3",
    "-B",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "-o",
    "junit_family=xunit1",
    "--rootdir=.",
    "--junitxml={junit}",
    "{tests}",
  ],
  requires: ["{junit}"],
  python: true,
  harness: [],
  fileOf: fileOfId,
  isTestFile: (path) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(path),
  checkId: (id) => (id.includes("::") || !id.endsWith(".py") ? null : "a pytest id names a test: file::name"),
  plan({ command, testFiles, sources, repositoryModules }) {
    const dirs = [...new Set(testFiles.map((f) => posix.dirname(f)).map((d) => (d === "." ? "" : d)))];
    const canaries = (dirs.length ? dirs : [""]).map(pytestCanary);
    const inline = testFiles.flatMap((file) => {
      const source = sources?.get(file);
      const planted = source && pythonInlineCanaries(file, source, repositoryModules ?? new Set());
      return planted ? [{ path: file, content: planted.content, checks: planted.checks }] : [];
    });
    const keysOf = (c: JunitCase) => [pytestCaseKey(c)];
    return {
      runs: [
        {
          label: "pytest",
          argv: expandCommand(command, { junit: REPORT_PATH }, [
            ...testFiles,
            ...canaries.map((c) => c.path),
          ]),
          keysOf,
          idOf: pytestCaseId,
          canaries: [...canaries, ...inline].flatMap((c) => c.checks),
        },
      ],
      files: [...canaries, ...inline],
      support: [],
      locate: (id) => ({ run: 0, key: pytestKey(id) }),
    } satisfies TestPlan;
  },
};

/** A pytest canary module in `dir` (workspace-relative, "" for the root). */
export function pytestCanary(dir: string): PlanFile & { checks: CanaryCheck[] } {
  const path = posix.join(dir, `test_${nonce()}.py`);
  const [pass, failAssert, failUnittest] = [nonce(), nonce(), nonce()];
  const sum = ints();
  const assertion = ints();
  const unittest = ints();
  const [m1, m2] = [nonce(), nonce()];
  const content = [
    "import unittest",
    "",
    "",
    `def test_${pass}():`,
    `    assert ${sum.a} + ${sum.b} == ${sum.a + sum.b}`,
    "",
    "",
    `def test_${failAssert}():`,
    `    assert ${assertion.a} == ${assertion.b}, "${m1}"`,
    "",
    "",
    `def test_${failUnittest}():`,
    "    try:",
    `        unittest.TestCase().assertEqual(${unittest.a}, ${unittest.b}, "${m2}")`,
    "    except AssertionError as error:",
    // Re-raised from here so that pytest's report shows this frame only: rendering the failure inside
    // unittest/case.py made pytest parse that whole module on every verification. Only
    // AssertionError is caught, so a patched assertEqual that skips or errors still misses "fail".
    "        raise AssertionError(str(error)) from None",
    "",
  ].join("\n");
  const check = (name: string) => ({ id: `${path}::test_${name}`, key: pytestKey(`${path}::test_${name}`) });
  return {
    path,
    content,
    checks: [
      { ...check(pass), expect: "pass" },
      { ...check(failAssert), expect: "fail", message: m1 },
      { ...check(failUnittest), expect: "fail", message: m2 },
    ],
  };
}
