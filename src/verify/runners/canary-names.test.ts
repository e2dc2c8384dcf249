import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactLine } from "../run/output-tail.ts";
import { canaryNames } from "./canary.ts";
import { jsId } from "./js-ids.ts";
import { mochaKeys } from "./mocha.ts";
import { RUNNERS } from "./registry.ts";

const PY_TEST = `import unittest

from calc import div


def test_divides():
    assert div(6, 3) == 2


class TestDiv(unittest.TestCase):
    def test_zero(self):
        self.assertEqual(div(0, 1), 0)
`;
const JS_TEST = `"use strict";
const assert = require("node:assert");
const { div } = require("../calc.js");

describe("div", () => {
  it("divides", () => {
    assert.strictEqual(div(6, 3), 2);
  });
});
`;

/** Each runner's plan for one hidden test module, with inline canaries. */
function plans() {
  return [...RUNNERS.values()].map((runner) => {
    const file = runner.python ? "tests/test_calc.py" : "test/calc.test.js";
    const plan = runner.plan({
      command: runner.name === "junit" ? ["run", "{junit}", "{tests}"] : [...runner.defaultCommand],
      testFiles: [file],
      canaryCommand: ["canary", "{junit}", "{pass}", "{fail}", "{message}"],
      sources: new Map([[file, runner.python ? PY_TEST : JS_TEST]]),
      repositoryModules: new Set(["calc"]),
    });
    return { runner: runner.name, file, plan };
  });
}

describe("canaryNames", () => {
  it.each(plans())(
    "covers every canary of the $runner runner, never the hidden test module's own name",
    ({ file, plan }) => {
      const names = canaryNames(plan, [file]);
      const hide = (line: string) => redactLine(line, names) !== line;
      for (const run of plan.runs)
        for (const canary of run.canaries) {
          expect(hide(`FAILED ${canary.id} - AssertionError`)).toBe(true);
          const test = canary.id.split("::").at(-1)!;
          if (file.endsWith(".py")) expect(hide(`    def ${test}():`)).toBe(true);
          else expect(hide(`  ✖ ${test}`)).toBe(true);
          if (canary.message) expect(hide(`E   AssertionError: ${canary.message}`)).toBe(true);
        }
      for (const f of plan.files) if (f.path !== file) expect(hide(`collected ${f.path}`)).toBe(true);
      // What the hidden tests themselves say stays readable.
      expect(hide(`FAILED ${file}::test_divides - assert 3 == 2`)).toBe(false);
      expect(hide(`${file}::div > divides (failed)`)).toBe(false);
    },
  );
});

describe("mochaKeys", () => {
  it("finds a case by its title path and by its full title, with and without its file, each once", () => {
    expect(mochaKeys("test/a.spec.js", ["A", "B c"])).toEqual([
      "test/a.spec.js::A > B c",
      "A > B c",
      "A B c",
      "test/a.spec.js::A B c",
    ]);
    expect(mochaKeys("test/a.spec.js", ["top"])).toEqual(["test/a.spec.js::top", "top"]);
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }), (titles) => {
        const keys = mochaKeys("f.js", titles);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys).toContain(jsId("f.js", titles));
        expect(keys).toContain(titles.join(" > "));
        expect(keys).toContain(titles.join(" "));
      }),
    );
  });
});
