import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NETWORK_SKIP } from "../../../test/support/debian-rootfs.ts";
import { TEST_RUNNERS } from "../../contracts/task-spec.ts";
import { type RunnerFixture, runnerContract } from "./contract.test-suite.ts";
import { RUNNERS, runnerNamed } from "./registry.ts";

/** The project every JavaScript fixture tests: `div` must throw a RangeError for a zero divisor. */
const CALC_JS = '"use strict";\nfunction div(a, b) {\n  return a / b;\n}\nmodule.exports = { div };\n';
const FIXED_JS =
  '"use strict";\nfunction div(a, b) {\n  if (b === 0) throw new RangeError("division by zero");\n  return a / b;\n}\nmodule.exports = { div };\n';
/** Disables node's assertion API for everything loaded after it (the hidden test's `assert.strictEqual` too). */
const FORGE_JS = `require("node:assert").strictEqual = () => {};\n${CALC_JS}`;
const EXIT_JS = `process.exit(0);\n${CALC_JS}`;
/** Throws the error the calling test expects, found by reading that test's file off the stack. */
const READS_TESTS_JS = `"use strict";
const fs = require("node:fs");

function askedFor() {
  for (const line of new Error().stack.split("\\n")) {
    const m = /\\((\\/[^:)]+):\\d+:\\d+\\)$/.exec(line) || /at (\\/[^:\\s]+):\\d+:\\d+$/.exec(line);
    if (!m || m[1].endsWith("/calc.js") || m[1].includes("node_modules")) continue;
    try {
      if (fs.readFileSync(m[1], "utf8").includes("RangeError")) return true;
    } catch {}
  }
  return false;
}

function div(a, b) {
  if (b === 0 && askedFor()) throw new RangeError("division by zero");
  return a / b;
}
module.exports = { div };
`;

const CALC_PY = "def div(a, b):\n    return a / b\n";
const FIXED_PY =
  'def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n    return a / b\n';
/** Raises what the calling test expects, found by reading the callers' source. */
const READS_TESTS_PY = `import inspect


def div(a, b):
    if b == 0:
        for frame in inspect.stack()[1:]:
            try:
                with open(frame.filename) as f:
                    source = f.read()
            except OSError:
                continue
            if "ValueError" in source:
                raise ValueError("division by zero")
    return a / b
`;

function jsFixture(
  runner: string,
  file: string,
  header: string,
  extra: Partial<RunnerFixture> = {},
): RunnerFixture {
  const it = runner === "jest" || runner === "vitest" ? "test" : "it";
  return {
    runner,
    language: "javascript",
    repo: {
      "calc.js": CALC_JS,
      [file]: `${header}\ndescribe("div", () => {\n  ${it}("divides", () => {\n    assert.strictEqual(div(6, 3), 2);\n  });\n});\n`,
    },
    tests: {
      [file]: [
        header,
        'describe("div", () => {',
        `  ${it}("divides", () => {`,
        "    assert.strictEqual(div(6, 3), 2);",
        "  });",
        `  ${it}("rejects a zero divisor", () => {`,
        "    assert.throws(() => div(1, 0), RangeError);",
        "  });",
        "});",
        "",
      ].join("\n"),
    },
    failToPass: [`${file}::div > rejects a zero divisor`],
    passToPass: [`${file}::div > divides`],
    fix: { "calc.js": FIXED_JS },
    forge: { "calc.js": FORGE_JS },
    exit: { "calc.js": EXIT_JS },
    readsTests: { "calc.js": READS_TESTS_JS },
    ...extra,
  };
}

const REQUIRE_JS = 'const assert = require("node:assert");\nconst { div } = require("../calc.js");';

const PYTEST: RunnerFixture = {
  runner: "pytest",
  language: "python",
  repo: { "calc.py": CALC_PY, "tests/__init__.py": "" },
  tests: {
    "tests/test_calc.py":
      "import pytest\n\nfrom calc import div\n\n\ndef test_divides():\n    assert div(6, 3) == 2\n\n\ndef test_rejects_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n",
  },
  failToPass: ["tests/test_calc.py::test_rejects_zero"],
  passToPass: ["tests/test_calc.py::test_divides"],
  fix: { "calc.py": FIXED_PY },
  forge: {
    "calc.py": `import unittest\n\nunittest.TestCase.assertEqual = lambda *a, **k: None\n\n\n${CALC_PY}`,
  },
  exit: { "calc.py": `import os\n\nos._exit(0)\n${CALC_PY}` },
  readsTests: { "calc.py": READS_TESTS_PY },
};

/** A project whose own test script writes JUnit (unittest here), with its canary script beside it. */
const RUN_JUNIT_PY = `"""Runs unittest modules (test_*.py among the arguments) and writes a JUnit report to argv[1]."""
import os
import sys
import unittest
from xml.sax.saxutils import quoteattr


def flatten(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from flatten(test)
        else:
            yield test


def run(out, files):
    sys.path.insert(0, os.getcwd())
    loader = unittest.TestLoader()
    cases = []
    for path in files:
        if not os.path.basename(path).startswith("test_"):
            continue
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        module = os.path.splitext(os.path.basename(path))[0]
        for test in flatten(loader.loadTestsFromName(module)):
            result = unittest.TestResult()
            test.run(result)
            kind = type(test)
            attrs = "classname=%s name=%s" % (quoteattr(kind.__module__ + "." + kind.__qualname__), quoteattr(test._testMethodName))
            problems = [("error", e) for _, e in result.errors] + [("failure", f) for _, f in result.failures]
            if problems:
                tag, text = problems[0]
                cases.append("<testcase %s><%s message=%s/></testcase>" % (attrs, tag, quoteattr(text)))
            elif result.skipped:
                cases.append("<testcase %s><skipped/></testcase>" % attrs)
            else:
                cases.append("<testcase %s/>" % attrs)
    with open(out, "w") as f:
        f.write("<testsuites><testsuite name='unittest'>%s</testsuite></testsuites>" % "".join(cases))
    return not any("<failure" in c or "<error" in c for c in cases)


if __name__ == "__main__":
    sys.exit(0 if run(sys.argv[1], sys.argv[2:]) else 1)
`;

const CANARY_PY = `"""gagar's canaries for this project: a passing {pass} and a failing {fail} with {message}."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_junit import run

out, passing, failing, message = sys.argv[1:5]
folder = tempfile.mkdtemp()
path = os.path.join(folder, "test_gagar_canary.py")
with open(path, "w") as f:
    f.write("import unittest\\n\\n\\nclass Canary(unittest.TestCase):\\n")
    f.write("    def test_%s(self):\\n        self.assertEqual(2 + 2, 4)\\n\\n" % passing)
    f.write("    def test_%s(self):\\n        self.assertEqual(1, 2, %r)\\n" % (failing, message))
sys.exit(0 if run(out, [path]) else 1)
`;

const JUNIT: RunnerFixture = {
  runner: "junit",
  language: "python",
  command: ["python3", "-B", "tests/run_junit.py", "{junit}", "{tests}"],
  canaryCommand: ["python3", "-B", "tests/canary.py", "{junit}", "{pass}", "{fail}", "{message}"],
  repo: { "calc.py": CALC_PY },
  tests: {
    "tests/run_junit.py": RUN_JUNIT_PY,
    "tests/canary.py": CANARY_PY,
    "tests/test_calc.py":
      "import unittest\n\nfrom calc import div\n\n\nclass DivTest(unittest.TestCase):\n    def test_divides(self):\n        self.assertEqual(div(6, 3), 2)\n\n    def test_rejects_zero(self):\n        try:\n            div(1, 0)\n        except ValueError:\n            return\n        except ZeroDivisionError:\n            pass\n        self.fail('div(1, 0) must raise ValueError')\n",
  },
  failToPass: ["test_calc.DivTest::test_rejects_zero"],
  passToPass: ["test_calc.DivTest::test_divides"],
  fix: { "calc.py": FIXED_PY },
  // The canaries run in a process of their own: in-process forgery of the graded tests is out of their reach.
  forge: null,
  exit: { "calc.py": `import os\n\nos._exit(0)\n${CALC_PY}` },
  // A command gagar knows nothing about gets no guard; the static scan still flags the idiom.
  readsTests: null,
};

const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";

describe("runner registry", () => {
  it("has one adapter for every runner a task.json may name", () => {
    expect([...RUNNERS.keys()].sort()).toEqual([...TEST_RUNNERS].sort());
    for (const [name, runner] of RUNNERS) expect(runner.name).toBe(name);
    expect(() => runnerNamed("tap")).toThrow(/unknown test runner "tap"/);
  });
});

runnerContract("pytest", () => PYTEST);
runnerContract("node:test", () =>
  jsFixture(
    "node:test",
    "test/calc.test.js",
    `const { describe, it } = require("node:test");\n${REQUIRE_JS}`,
  ),
);
runnerContract(
  "mocha (Debian's mocha package)",
  () =>
    jsFixture("mocha", "test/calc.spec.js", REQUIRE_JS, {
      command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
      env: { NODE_PATH: "/usr/share/nodejs" },
    }),
  existsSync(DEBIAN_MOCHA)
    ? undefined
    : "Debian's mocha is not installed (apt-get install mocha; .ci/run does)",
);
runnerContract("junit (a project's own JUnit script, canaries by command)", () => JUNIT);

/** jest and vitest come from the npm registry into a setup environment (network-gated). */
const npmInstall = (pkg: string) => ({
  kind: "setup",
  commands: [["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", pkg]],
});
runnerContract(
  "jest (installed from the npm registry by a setup environment)",
  () =>
    jsFixture("jest", "test/calc.test.js", REQUIRE_JS, {
      environment: npmInstall("jest@29.7.0"),
      timeoutSec: 120,
    }),
  NETWORK_SKIP,
);
runnerContract(
  "vitest (installed from the npm registry by a setup environment)",
  () =>
    jsFixture(
      "vitest",
      "test/calc.test.mjs",
      'import assert from "node:assert";\nimport { describe, test } from "vitest";\nimport calc from "../calc.js";\n\nconst { div } = calc;',
      { environment: npmInstall("vitest@2.1.9"), timeoutSec: 120 },
    ),
  NETWORK_SKIP,
);
