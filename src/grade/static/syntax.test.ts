import { describe, expect, it } from "vitest";
import { loadSyntax, walkNamed } from "./syntax.ts";

describe("loadSyntax", () => {
  it("loads the four grammars once, from the installed wasm files", async () => {
    const [a, b] = await Promise.all([loadSyntax(), loadSyntax()]);
    expect(a).toBe(b);
    for (const language of ["python", "javascript", "typescript", "tsx"] as const) {
      expect(a.withTree(language, "x = 1", (root) => root.hasError)).toBe(false);
    }
  });

  it("walks named nodes depth-first in source order", async () => {
    const syntax = await loadSyntax();
    const types = syntax.withTree("python", "f(a, 1)", (root) => [...walkNamed(root)].map((n) => n.type));
    expect(types).toEqual([
      "module",
      "expression_statement",
      "call",
      "identifier",
      "argument_list",
      "identifier",
      "integer",
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
