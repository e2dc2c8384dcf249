import { describe, expect, it } from "vitest";
import { declaresTests } from "./test-modules.ts";

describe("declaresTests", () => {
  it("finds the tests of every runner gagar has an adapter for", () => {
    const modules: [string, string][] = [
      ["tests/test_x.py", "def test_parses():\n    assert True\n"],
      ["tests/test_x.py", "class TestParser:\n    async def test_it(self): ...\n"],
      ["tests/legacy.py", "import unittest\n\nclass Parses(unittest.TestCase):\n    pass\n"],
      ["test/a.test.js", 'const { test } = require("node:test");\ntest("a", () => {});\n'],
      ["test/a.spec.js", 'describe("a", function () {\n  it("b", function () {});\n});\n'],
      ["test/a.test.ts", 'import { expect, it } from "vitest";\n'],
      ["test/a.test.mjs", "test.each([1, 2])('%d', (n) => {});\n"],
      ["test/a.test.js", 'import test from "ava";\n'],
    ];
    for (const [path, text] of modules) expect(declaresTests(path, text), text).toBe(true);
  });

  it("leaves out what only comes with the tests: executable fixtures, data, helpers", () => {
    const others: [string, string][] = [
      ["tests/fixtures/tool.py", 'import sys\nprint("tool", sys.argv[1:])\n'],
      ["tests/helpers.py", "def make_user(name):\n    return {'name': name}\n"],
      [
        "test/fixtures/pm-install.js",
        '#!/usr/bin/env node\nconsole.log("install", process.argv.slice(2));\n',
      ],
      ["test/fixtures/cli.js", "const ok = /^--\\w+/.test(process.argv[2]);\nprocess.exit(ok ? 0 : 1);\n"],
      ["test/helpers/split.js", "module.exports = (s) => s.split(',').map((bit) => bit.trim());\n"],
    ];
    for (const [path, text] of others) expect(declaresTests(path, text), text).toBe(false);
  });
});
