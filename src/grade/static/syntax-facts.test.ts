import { beforeAll, describe, expect, it } from "vitest";
import { type HunkSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

/** Syntax facts are reached through codeFacts, which picks tree-sitter for these languages. */
const factsOf = (path: string, ...hunks: HunkSpec[]) =>
  codeFacts(viewCandidate("c", patch({ path, hunks })).files[0]!, syntax);

describe("codeFacts with tree-sitter", () => {
  it("finds Python comments on added lines only, with trailing ones marked", () => {
    const facts = factsOf("a.py", {
      at: 5,
      lines: [
        "     # existing note",
        "+    # print(value)",
        "+    value = value.strip()  # keep it short",
        "     return value",
      ],
    });
    expect(facts.comments).toEqual([
      { text: "print(value)", newLine: 6, ownLine: true, doc: false },
      { text: "keep it short", newLine: 7, ownLine: false, doc: false },
    ]);
  });

  it("does not mistake a # inside a string for a comment", () => {
    const facts = factsOf("a.py", { at: 1, lines: ['+COLOR = "#ff0000"'] });
    expect(facts.comments).toEqual([]);
  });

  it("finds new Python definitions with their scope, decorators and privacy", () => {
    const method = {
      at: 80,
      lines: ["         return self.size", "+", "+    def _helper(self):", "+        return 1"],
    };
    const facts = factsOf(
      "a.py",
      {
        at: 20,
        lines: [
          " ",
          "+def collapse(value):",
          "+    def inner(x):",
          "+        return x",
          "+    return inner(value)",
          "+",
          "+@lru_cache",
          "+def cached(value):",
          "+    return value",
        ],
      },
      method,
    );
    expect(facts.definitions.map((d) => [d.name, d.container, d.external, d.private])).toEqual([
      ["collapse", "module", false, false],
      ["inner", "function", false, false],
      ["cached", "module", true, false],
      ["_helper", "unknown", false, true],
    ]);
  });

  it("finds JavaScript declarations, arrow functions, exports and private methods", () => {
    const facts = factsOf("a.js", {
      at: 1,
      lines: [
        "+function unitFor(i) { return UNITS[i]; }",
        "+const toKb = (b) => b / 1024;",
        "+export function pub() {}",
        "+class Cache { #evict() {} get() {} }",
      ],
    });
    expect(facts.definitions.map((d) => [d.name, d.kind, d.container, d.external, d.private])).toEqual([
      ["unitFor", "function", "module", false, false],
      ["toKb", "function", "module", false, false],
      ["pub", "function", "module", true, false],
      ["Cache", "class", "module", false, false],
      ["evict", "function", "class", false, true],
      ["get", "function", "class", false, false],
    ]);
  });

  it("finds branches that test against literals, with the literal they return or assign", () => {
    const py = factsOf("a.py", {
      at: 10,
      lines: [
        '+    if value == "hello -- world":',
        '+        return "hello-world"',
        "+    if n in (3, 4):",
        "+        return True",
        '+    if region in ("EU", "UK") or code == "x1":',
        '+        region = "eu"',
        '+    if "://" in line and line.startswith("http"):',
        "+        pass",
      ],
    });
    expect(py.branches).toEqual([
      {
        newLine: 10,
        tests: [{ subject: "value", values: ["hello -- world"] }],
        returned: '"hello-world"',
        yielded: ["hello-world"],
      },
      { newLine: 12, tests: [{ subject: "n", values: ["3", "4"] }], returned: null, yielded: [] },
      {
        newLine: 14,
        tests: [
          { subject: "region", values: ["EU", "UK"] },
          { subject: "code", values: ["x1"] },
        ],
        returned: null,
        yielded: ["eu"],
      },
      { newLine: 16, tests: [{ subject: "line", values: ["://", "http"] }], returned: null, yielded: [] },
    ]);
    const ts = factsOf("a.ts", {
      at: 3,
      lines: [
        '+  if (bytes === 1125899906842624) return "1048576.0 GB";',
        "+  const unit = kind === 'tb' ? `TB` : base;",
        '+  if (["#fff", "#000"].includes(hex)) label = "mono";',
        '+  if (text.endsWith("1,000.00")) {',
        "+    return text;",
        "+  }",
      ],
    });
    expect(ts.branches.map((b) => [b.tests, b.yielded])).toEqual([
      [[{ subject: "bytes", values: ["1125899906842624"] }], ["1048576.0 GB"]],
      [[{ subject: "kind", values: ["tb"] }], ["TB"]],
      [[{ subject: "hex", values: ["#fff", "#000"] }], ["mono"]],
      // Read at one end of the subject: a token at a fixed position, not the whole value.
      [[{ subject: "text", values: ["1,000.00"], anchored: true }], []],
    ]);
  });

  it("finds literal collections the patch adds (nested literals flattened), but not tuples tested against or edited tables", () => {
    const py = factsOf(
      "a.py",
      {
        at: 3,
        lines: [
          '+ACCENTS = {"é": "e", "ü": "u", 3: None}',
          '+SIZES = ["s", "m", "l"]',
          '+if x in ("a", "b"):',
          "+    pass",
          "+PAIRS = [(1, 2), (3, 4)]",
        ],
      },
      { at: 20, lines: [" RATES = {", '-    "eu": 1,', '+    "eu": 2,', '     "uk": 3,', " }"] },
    );
    expect(py.collections).toEqual([
      { newLine: 3, keys: ["é", "ü", "3"], values: ["e", "u"] },
      { newLine: 4, keys: [], values: ["s", "m", "l"] },
      { newLine: 7, keys: [], values: ["1", "2", "3", "4"] },
    ]);
    const js = factsOf("a.js", {
      at: 1,
      lines: ['+const T = { è: "e", "#0a3": { r: 0 } };', '+const L = new Set(["x1", "x2"]);'],
    });
    expect(js.collections).toEqual([
      { newLine: 1, keys: ["è", "#0a3"], values: ["e"] },
      { newLine: 2, keys: [], values: ["x1", "x2"] },
    ]);
  });

  it("ignores branches whose condition or result is existing code", () => {
    const facts = factsOf("a.py", {
      at: 10,
      lines: ['     if value == "x":', '-        return "old"', '+        return "new"'],
    });
    expect(facts.branches).toEqual([]);
  });
});
