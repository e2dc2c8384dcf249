import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsInlineCanaries } from "./js-inline-canaries.ts";
import { pythonInlineCanaries } from "./python-inline-canaries.ts";

const PY_TEST = `import unittest

import pytest

from calc import div, mul as times


def test_divides():
    assert div(6, 3) == 2


def test_rejects_zero():
    with pytest.raises(ValueError):
        div(1, 0)


class TestTimes(unittest.TestCase):
    def test_times_two(self):
        self.assertEqual(times(2, 3), 6)
        self.assertTrue(times(0, 1) == 0)
`;
const PY_CODE = `def div(a, b):
    if b == 0:
        raise ValueError("division by zero")
    return a / b


def mul(a, b):
    return a * b
`;
const JS_TEST = `"use strict";
const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { mean, sum: total } = require("../lib/stats.js");

describe("mean", () => {
  test("averages numbers", () => {
    assert.strictEqual(mean([2, 4]), 3);
    assert.deepStrictEqual([total([1, 2])], [3]);
  });
  test("rejects empty arrays", () => {
    assert.throws(() => mean([]), RangeError);
  });
});
`;
const JS_CODE = `"use strict";
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
function mean(xs) {
  if (xs.length === 0) throw new RangeError("mean of an empty array");
  return sum(xs) / xs.length;
}
module.exports = { sum, mean };
`;

const scratch = mkdtempSync(join(tmpdir(), "gagar-inline-canaries-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("canaries planted into a pytest module", () => {
  const planted = pythonInlineCanaries("tests/test_calc.py", PY_TEST, new Set(["calc"]))!;

  it("keeps the module, and adds one canary per assertion API it uses, each mentioning the code under test", () => {
    expect(planted.content.startsWith(PY_TEST)).toBe(true);
    const added = planted.content.slice(PY_TEST.length);
    expect(added).toMatch(/assert (div|times) == "[0-9a-f]{12}", "[0-9a-f]{12}"/);
    expect(added).toMatch(/with pytest\.raises\(ZeroDivisionError\):\n\s+(div|times)\n/);
    expect(added).toMatch(/self\.assertEqual\((div|times), /);
    expect(added).toMatch(/self\.assertTrue\((div|times) == /);
    expect(added).toMatch(/^class Test[A-Z]\w*\(unittest\.TestCase\):/m);
    expect(planted.checks.every((c) => c.expect === "fail")).toBe(true);
    expect(planted.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^tests\/test_calc\.py::Test\w+::test_\w+$/)]),
    );
  });

  it("names canaries with the module's own words, never twice, never like an existing test", () => {
    const names = planted.checks.map((c) => c.id.split("::").at(-1)!);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^test_[a-z]+(_[a-z]+)+$/);
      expect(["test_divides", "test_rejects_zero", "test_times_two"]).not.toContain(name);
    }
  });

  it("fails every canary, with its message, under pytest on a correct fix, while the module's own tests pass", () => {
    const dir = write(join(scratch, "py"), { "calc.py": PY_CODE, "tests/test_calc.py": planted.content });
    const run = spawnSync(
      "/usr/bin/python3",
      ["-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", "tests/test_calc.py"],
      { cwd: dir, encoding: "utf8" },
    );
    expect(run.stdout).toMatch(/3 passed/);
    for (const check of planted.checks) {
      const name = check.id.split("::").slice(1).join("::");
      expect(run.stdout).toContain(`FAILED tests/test_calc.py::${name}`);
      if (check.message) expect(run.stdout).toContain(check.message);
    }
  });

  it("plants nothing where the module names its tests another way, and never reuses a module-level name", () => {
    const custom = "from calc import div\n\n\ndef check_div():\n    assert div(4, 2) == 2\n";
    expect(pythonInlineCanaries("tests/test_x.py", custom, new Set(["calc"]))).toBeNull();
    const crowded = `from calc import div\n\ntest_div_div = [1]\ntest_div_ok: list = []\n\n\ndef test_div_ok_div():\n    assert div(4, 2) == 2\n`;
    for (let i = 0; i < 20; i++) {
      const planted = pythonInlineCanaries("tests/test_x.py", crowded, new Set(["calc"]))!;
      const names = planted.checks.map((c) => c.id.split("::").at(-1));
      expect(names).not.toContain("test_div_div");
      expect(names).not.toContain("test_div_ok");
    }
  });

  it("plants nothing where the module marks or skips all its tests, which would mark or skip the canaries too", () => {
    const head = "import shutil\n\nimport pytest\n\nfrom calc import div\n\n";
    const tail = "\n\ndef test_div():\n    assert div(4, 2) == 2\n";
    const wide = [
      // attrs' tests/test_pyright.py
      'pytestmark = [\n    pytest.mark.skipif(\n        shutil.which("pyright") is None, reason="Requires pyright."\n    ),\n]',
      "pytestmark = pytest.mark.xfail(strict=True)",
      'pytestmark: list = [pytest.mark.usefixtures("db")]',
      'cloudpickle = pytest.importorskip("cloudpickle")',
      'pytest.importorskip("numpy")',
      'try:\n    import numpy\nexcept ImportError:\n    pytest.skip("no numpy", allow_module_level=True)',
    ];
    for (const shape of wide)
      expect(
        pythonInlineCanaries("tests/test_x.py", head + shape + tail, new Set(["calc"])),
        shape,
      ).toBeNull();
    // Per-test marks and skips leave the canaries alone: they are planted.
    const local = [
      '@pytest.mark.skipif(shutil.which("x") is None, reason="no x")\ndef test_x():\n    pass',
      'def test_y():\n    np = pytest.importorskip("numpy")\n    assert np',
      "def test_z():\n    assert pytestmark == 1",
    ];
    for (const shape of local)
      expect(
        pythonInlineCanaries("tests/test_x.py", head + shape + tail, new Set(["calc"])),
        shape,
      ).not.toBeNull();
  });

  it("plants nothing where the module imports nothing of the repository's", () => {
    expect(
      pythonInlineCanaries(
        "tests/test_x.py",
        "import os\n\ndef test_a():\n    assert os\n",
        new Set(["calc"]),
      ),
    ).toBeNull();
  });
});

describe("canaries planted into a JavaScript test module", () => {
  const planted = jsInlineCanaries("test/stats.test.js", JS_TEST)!;

  it("uses the module's own assert binding, test function and imported names, one canary per assert method", () => {
    const added = planted.content.slice(JS_TEST.length);
    expect(added).toMatch(/^test\("[a-z ]+", \(\) => \{\n {2}assert\.strictEqual\(typeof (mean|total), /m);
    expect(added).toMatch(/assert\.deepStrictEqual\(\[typeof (mean|total)\]/);
    expect(added).toMatch(/assert\.throws\(\(\) => typeof (mean|total), "[0-9a-f]{12}"\);/);
    expect(planted.checks).toHaveLength(3);
    expect(planted.checks[0]!.id).toMatch(/^test\/stats\.test\.js::[a-z]+( [a-z]+)+$/);
  });

  it("fails every canary, with its message, under node --test on a correct fix, while the module's own tests pass", () => {
    const dir = write(join(scratch, "js"), {
      "lib/stats.js": JS_CODE,
      "test/stats.test.js": planted.content,
    });
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", "test/stats.test.js"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(run.stdout).toMatch(/# pass 2/);
    expect(run.stdout).toMatch(/# fail 3/);
    for (const check of planted.checks) {
      expect(run.stdout).toContain(`not ok`);
      expect(run.stdout).toContain(check.message!);
    }
  });

  it("covers expect matchers, ES module imports and chai-style assert bindings", () => {
    const esm = `import { expect, test } from "vitest";\nimport stats, { mean } from "../src/stats";\n\ntest("mean", () => {\n  expect(mean([1])).toBe(1);\n  expect(() => mean([])).toThrow();\n});\n`;
    const planted = jsInlineCanaries("test/stats.test.ts", esm)!;
    expect(planted.content).toMatch(/expect\(typeof (stats|mean)\)\.toBe\("[0-9a-f]{12}"\);/);
    expect(planted.content).toMatch(/expect\(\(\) => typeof (stats|mean)\)\.toThrow\(\);/);
    const chai = `const { assert } = require("chai");\nconst calc = require("../calc");\n\nit("adds", () => {\n  assert.equal(calc.add(1, 1), 2);\n});\n`;
    expect(jsInlineCanaries("test/calc.spec.js", chai)!.content).toMatch(
      /^it\(".+", \(\) => \{\n {2}assert\.equal\(typeof calc/m,
    );
  });

  it("asserts through chai's expect chains and should chains the module uses, each with its message", () => {
    const spec = `const { expect } = require("chai");
const should = require("should");
const { div } = require("../lib/calc.js");

describe("div", () => {
  it("divides", () => {
    expect(div(6, 3)).to.equal(2);
    div(4, 2).should.equal(2);
  });
  it("rejects zero", () => {
    expect(() => div(1, 0)).to.throw(RangeError);
  });
});
`;
    const planted = jsInlineCanaries("test/calc.spec.js", spec)!;
    const added = planted.content.slice(spec.length);
    expect(added).toMatch(/expect\(typeof div, "([0-9a-f]{12})"\)\.to\.equal\("[0-9a-f]{12}"\);/);
    expect(added).toMatch(/expect\(\(\) => typeof div, "[0-9a-f]{12}"\)\.to\.throw\(\);/);
    expect(added).toMatch(/\(typeof div\)\.should\.equal\("[0-9a-f]{12}", "[0-9a-f]{12}"\);/);
    expect(planted.checks).toHaveLength(3);
    for (const check of planted.checks) expect(added).toContain(`"${check.message}"`);
    // vitest's expect is chai too; chai's assert taken from the module.
    const vitest = `import { expect, test } from "vitest";\nimport { mean } from "../src/stats";\n\ntest("mean", () => {\n  expect(mean([1])).to.eql(1);\n});\n`;
    expect(jsInlineCanaries("test/stats.test.ts", vitest)!.content).toMatch(
      /expect\(\[typeof mean\], "[0-9a-f]{12}"\)\.to\.eql\(/,
    );
    const chaiAssert = `const assert = require("chai").assert;\nconst calc = require("../calc");\n\nit("adds", () => {\n  assert.strictEqual(calc.add(1, 1), 2);\n});\n`;
    expect(jsInlineCanaries("test/calc.spec.js", chaiAssert)!.content).toMatch(
      /assert\.strictEqual\(typeof calc/,
    );
  });

  it("plants nothing into a module that imports no local code or declares tests another way", () => {
    expect(
      jsInlineCanaries(
        "test/a.test.js",
        'const assert = require("assert");\ntest("x", () => assert.ok(1));\n',
      ),
    ).toBeNull();
    expect(
      jsInlineCanaries(
        "test/a.js",
        'const t = require("tap");\nconst m = require("../m");\nt.test("x", (t) => t.ok(m));\n',
      ),
    ).toBeNull();
  });
});
