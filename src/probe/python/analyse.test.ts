import { beforeAll, describe, expect, it } from "vitest";
import { loadSyntax, type Syntax } from "../../grade/static/syntax.ts";
import type { TestModule } from "../types.ts";
import { analysePython } from "./analyse.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const analyse = (text: string): TestModule =>
  syntax.withTree("python", text, (root) => analysePython(root, "tests/test_x.py", text));
const literalTexts = (m: TestModule, test = 0) =>
  m.tests[test]!.literals.map((l) => m.text.slice(l.span.start, l.span.end));

describe("pytest module analysis", () => {
  it("finds functions, Test classes and TestCase methods, with their node ids", () => {
    const m = analyse(
      [
        "import unittest",
        "def helper(): pass",
        "def test_a(): assert f(1) == 2",
        "class TestB:",
        "    def test_b(self): assert f(2)",
        "    def setup_method(self): pass",
        "class Cases(unittest.TestCase):",
        "    def test_c(self): self.assertEqual(f(3), 4)",
        "class Other:",
        "    def test_not_collected(self): pass",
      ].join("\n"),
    );
    expect(m.tests.map((t) => t.id)).toEqual([
      "tests/test_x.py::test_a",
      "tests/test_x.py::TestB::test_b",
      "tests/test_x.py::Cases::test_c",
    ]);
  });

  it("perturbs inputs, never expected values, messages, subscripts, dict keys, names or docstrings", () => {
    const m = analyse(
      [
        "def test_x(monkeypatch):",
        '    """Docstring 1."""',
        '    monkeypatch.setenv("HOME", "/tmp")',
        '    result = parse("12/03/99", {"strict": True}, limit=5)',
        '    assert result[0] == date(1999, 3, 12), "message 7"',
        '    assert getattr(result, "year") > 1900',
        '    with pytest.raises(ValueError, match="bad 8"):',
        '        parse("")',
      ].join("\n"),
    );
    expect(literalTexts(m)).toEqual(['"12/03/99"', "True", "5", '""']);
    expect(m.tests[0]!.assertions.map((a) => [a.kind, a.operator])).toEqual([
      ["equal", "=="],
      ["operands", ">"],
      ["raises-block", "raises"],
    ]);
  });

  it("takes the actual value from the side that is not a constant", () => {
    const m = analyse("def test_x():\n    assert 1999 == expand(99)\n");
    const a = m.tests[0]!.assertions[0]!;
    expect(m.text.slice(a.operands[0]!.start, a.operands[0]!.end)).toBe("expand(99)");
    expect(m.text.slice(a.expected!.start, a.expected!.end)).toBe("1999");
    expect(literalTexts(m)).toEqual(["99"]);
  });

  it("reads a parametrize table, leaving out the columns that only reach expected values", () => {
    const m = analyse(
      [
        '@pytest.mark.parametrize("written, expected", [(7, 2007), pytest.param(99, 1999, id="last")], ids=["a", "b"])',
        "def test_pivot(written, expected):",
        "    assert expand(written) == expected",
      ].join("\n"),
    );
    const site = m.tests[0]!;
    expect(literalTexts(m)).toEqual(["7", "99"]);
    expect(site.literals.map((l) => l.row)).toEqual([
      { table: 0, row: 0 },
      { table: 0, row: 1 },
    ]);
    expect(site.tables[0]!.width).toBe(2);
    expect(m.text.slice(site.tables[0]!.drop[0]!.start, site.tables[0]!.drop[0]!.end)).toBe(
      ', ids=["a", "b"]',
    );
  });

  it("reads a table a test loops over as cases, not as a collection", () => {
    const m = analyse(
      [
        "def test_loop():",
        '    for text, want in [("1h", 3600), ("2m", 120)]:',
        "        assert parse(text) == want",
      ].join("\n"),
    );
    expect(literalTexts(m)).toEqual(['"1h"', '"2m"']);
  });

  it("leaves an assertion that awaits or binds a name as it is", () => {
    const m = analyse(
      "async def test_x():\n    assert await fetch(1) == 2\n    assert (m := match(3))\n    assert ok(4)\n",
    );
    expect(m.tests[0]!.assertions.map((a) => a.key)).toEqual(["a0"]);
    expect(m.tests[0]!.async).toBe(true);
  });

  it("observes assertions in helpers and fixtures, and brings the helper in after the docstring and __future__", () => {
    const m = analyse(
      [
        '"""Module docstring."""',
        "from __future__ import annotations",
        "def check(x):",
        "    assert x > 0",
        "def test_x():",
        "    check(f(1))",
      ].join("\n"),
    );
    expect(m.helperAssertions.map((a) => a.key)).toEqual(["h0"]);
    expect(m.text.slice(0, m.preambleEnd)).toBe(
      '"""Module docstring."""\nfrom __future__ import annotations',
    );
  });
});
