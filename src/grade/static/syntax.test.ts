import { describe, expect, it } from "vitest";
import { loadSyntax, nodesOfType } from "./syntax.ts";

describe("loadSyntax", () => {
  it("loads the four grammars once, from the installed wasm files", async () => {
    const [a, b] = await Promise.all([loadSyntax(), loadSyntax()]);
    expect(a).toBe(b);
    for (const language of ["python", "javascript", "typescript", "tsx"] as const) {
      expect(a.withTree(language, "x = 1", (root) => root.hasError)).toBe(false);
    }
  });

  it("finds named nodes of given types depth-first in source order, under the given node only", async () => {
    const syntax = await loadSyntax();
    const found = syntax.withTree("python", "f(a, g(1))\nh(b)", (root) => {
      const first = root.namedChildren[0]!;
      return [
        nodesOfType(root, new Set(["call", "module"])).map((n) => n.text),
        nodesOfType(first, new Set(["identifier", "integer"])).map((n) => n.text),
      ];
    });
    expect(found).toEqual([
      ["f(a, g(1))\nh(b)", "f(a, g(1))", "g(1)", "h(b)"],
      ["f", "a", "g", "1"],
    ]);
  });

  it("passes errors from the callback through (and still frees the tree)", async () => {
    const syntax = await loadSyntax();
    expect(() =>
      syntax.withTree("javascript", "let x;", () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(syntax.withTree("javascript", "let x;", (root) => root.type)).toBe("program");
  });
});
