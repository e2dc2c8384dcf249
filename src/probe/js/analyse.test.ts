import { beforeAll, describe, expect, it } from "vitest";
import { loadSyntax, type Syntax } from "../../grade/static/syntax.ts";
import { probeAdapter } from "../adapters.ts";
import type { TestModule } from "../types.ts";
import { analyseJs } from "./analyse.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const analyse = (text: string, runner = "node:test", file = "test/x.test.js"): TestModule =>
  syntax.withTree(file.endsWith(".ts") ? "typescript" : "javascript", text, (root) =>
    analyseJs(root, file, text, probeAdapter(runner)!),
  );
const literalTexts = (m: TestModule, test = 0) =>
  m.tests[test]!.literals.map((l) => m.text.slice(l.span.start, l.span.end));
const kinds = (m: TestModule, test = 0) => m.tests[test]!.assertions.map((a) => `${a.kind}:${a.operator}`);

describe("JavaScript test module analysis", () => {
  it("finds tests inside their suites, skips skipped ones, and knows which titles are static", () => {
    const m = analyse(
      [
        'import { describe, it } from "node:test";',
        'describe("outer", () => {',
        '  describe("inner", () => {',
        '    it("works", () => {});',
        '    it.skip("later", () => {});',
        "  });",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a test module
        "  for (const n of [1, 2]) it(`case ${n}`, () => {});",
        "});",
        'test("top", { timeout: 5 }, async () => {});',
      ].join("\n"),
    );
    expect(m.tests.map((t) => [t.id, t.staticId])).toEqual([
      ["test/x.test.js::outer > inner > works", true],
      ["test/x.test.js::outer > <dynamic title, line 7>", false],
      ["test/x.test.js::top", true],
    ]);
    expect(m.esm).toBe(true);
  });

  it("reads node:assert through the names the module binds it to", () => {
    const m = analyse(
      [
        'const { strict: assert } = require("node:assert");',
        'const { deepStrictEqual, throws } = require("assert");',
        'it("x", () => {',
        '  assert.equal(slug("Crème"), "creme");',
        '  deepStrictEqual(split("a,b"), ["a", "b"]);',
        '  throws(() => parse("?"), TypeError);',
        "  assert(ok(3));",
        "});",
      ].join("\n"),
      "mocha",
    );
    expect(kinds(m)).toEqual(["equal:equal", "equal:deepStrictEqual", "throws:throws", "value:truthy"]);
    expect(literalTexts(m)).toEqual(['"Crème"', '"a,b"', '"?"', "3"]);
    expect(m.esm).toBe(false);
  });

  it("reads expect chains of jest, vitest and chai, and drops expect.assertions", () => {
    const m = analyse(
      [
        'test("x", async () => {',
        "  expect.assertions(4);",
        '  expect(width("日本")).toBe(4);',
        '  expect(parse("a")).not.toEqual({ a: 1 });',
        "  await expect(load(2)).rejects.toThrow(RangeError);",
        "  expect(() => width(5)).toThrow();",
        "  expect(list(6)).toContain(7);",
        '  expect(chai("b")).to.deep.equal([8]);',
        "});",
      ].join("\n"),
      "jest",
    );
    expect(kinds(m)).toEqual([
      "equal:toBe",
      "equal:not.toEqual",
      "settles:rejects",
      "throws:throws",
      "value:matcher",
      "equal:deepStrictEqual",
    ]);
    expect(literalTexts(m)).toEqual(['"日本"', '"a"', "2", "5", "6", '"b"']);
    expect(Object.keys(m.tests[0]!.anchors).filter((k) => k.startsWith("remove"))).toHaveLength(1);
  });

  it("leaves out the event an emitter's listener waits for and a stream's encoding, not the other arguments", () => {
    const m = analyse(
      [
        'it("routes", async () => {',
        '  router.on("GET", "/admin", handler);',
        "  const body = await new Promise((resolve) => {",
        '    res.setEncoding("utf8");',
        '    res.once("data", (chunk) => resolve(chunk));',
        '    target.addEventListener("message", listener);',
        '    bus.emit("tick", 3);',
        "  });",
        '  assert.equal(body, "ok");',
        "});",
      ].join("\n"),
      "mocha",
    );
    expect(literalTexts(m)).toEqual(['"/admin"', "3"]);
  });

  it("reads an .each table, leaving out the columns that only reach expected values", () => {
    const m = analyse(
      [
        'test.each([["表", 2], ["ok", 2]])("width of %s", (text, width) => {',
        "  expect(displayWidth(text)).toBe(width);",
        "});",
      ].join("\n"),
      "vitest",
    );
    expect(literalTexts(m)).toEqual(['"表"', '"ok"']);
    expect(m.tests[0]!.literals.map((l) => l.row)).toEqual([
      { table: 0, row: 0 },
      { table: 0, row: 1 },
    ]);
    expect(m.tests[0]!.staticId).toBe(false);
  });

  it("reads loop tables as cases and leaves TypeScript types and object keys alone", () => {
    const m = analyse(
      [
        'it("x", () => {',
        '  const cases: [string, number][] = [["1h", 3600], ["2m", 120]];',
        '  for (const [text, seconds] of [["1h", 3600], ["2m", 120]]) expect(parse(text, { unit: "s" })).toBe(seconds);',
        '  const mode: "fast" | "slow" = "fast";',
        "});",
      ].join("\n"),
      "vitest",
      "test/x.spec.ts",
    );
    expect(literalTexts(m)).toEqual([
      '[["1h", 3600], ["2m", 120]]',
      '["1h", 3600]',
      '"1h"',
      "3600",
      '["2m", 120]',
      '"2m"',
      "120",
      '"1h"',
      '"2m"',
      '"s"',
      '"fast"',
    ]);
  });

  it("marks an assertion whose operand awaits in the test's own scope", () => {
    const m = analyse(
      'it("x", async () => {\n  assert.equal(await get(1), 2);\n  assert.ok([3].map(async (n) => await n));\n});',
    );
    expect(m.tests[0]!.assertions.map((a) => a.awaits)).toEqual([true, false]);
  });

  it("observes assertions in hooks and helpers, never in suites' own bodies", () => {
    const m = analyse(
      [
        "function check(x) { assert.ok(x > 0); }",
        'describe("s", () => {',
        "  beforeEach(() => { assert.equal(setup(), 1); });",
        '  it("t", () => check(f(2)));',
        "});",
      ].join("\n"),
    );
    expect(m.helperAssertions.map((a) => a.key)).toEqual(["h0", "h1"]);
  });
});
