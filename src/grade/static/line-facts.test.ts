import { beforeAll, describe, expect, it } from "vitest";
import { type HunkSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

/** Line facts are reached through codeFacts, which falls back to them for other languages. */
const factsOf = (path: string, ...hunks: HunkSpec[]) =>
  codeFacts(viewCandidate("c", patch({ path, hunks })).files[0]!, syntax);

describe("codeFacts by lines (other languages)", () => {
  it("finds Java comments, private definitions and literal branches", () => {
    const facts = factsOf("src/Padding.java", {
      at: 12,
      lines: [
        "   public static String left(String s, int width) {",
        "+    // return s.substring(0, width);",
        '+    if ("abc".equals(s)) {',
        '+      return "  abc";',
        "+    }",
        "+    return s; // FIXME",
        "+  private static String pad(int n) {",
      ],
    });
    expect(facts.comments).toEqual([
      { text: "return s.substring(0, width);", newLine: 13, ownLine: true, doc: false },
      { text: "FIXME", newLine: 17, ownLine: false, doc: false },
    ]);
    expect(facts.branches).toEqual([
      { newLine: 14, tests: [{ subject: "s", values: ["abc"] }], returned: '"  abc"', yielded: ["  abc"] },
    ]);
    expect(facts.definitions).toEqual([
      expect.objectContaining({ name: "pad", kind: "function", private: true, external: false }),
    ]);
  });

  it("finds every literal test on an if line, an assigned answer, and inline literal collections", () => {
    const facts = factsOf("src/Fmt.java", {
      at: 5,
      lines: [
        '+    if (text.equals("1:1:1") || "1:5".equals(text) || line.contains("://")) {',
        '+      text = "1:01:01";',
        "+    }",
        '+    Set<String> codes = Set.of("EU", "UK");',
        '+    Map<String, Integer> m = Map.of("JPY", 0, "KWD", 3);',
        '+    List<String> mixed = List.of(a, "b");',
      ],
    });
    expect(facts.branches).toEqual([
      {
        newLine: 5,
        tests: [
          { subject: "text", values: ["1:1:1", "1:5"] },
          { subject: "line", values: ["://"] },
        ],
        returned: null,
        yielded: ["1:01:01"],
      },
    ]);
    expect(facts.collections).toEqual([
      { newLine: 8, keys: [], values: ["EU", "UK"] },
      { newLine: 9, keys: ["JPY", "KWD"], values: ["0", "3"] },
    ]);
  });

  it("reads nothing from data and docs files", () => {
    const facts = factsOf("notes.txt", { at: 1, lines: ["+if x == 'y': return 'z'", "+# TODO"] });
    expect(facts).toEqual({ comments: [], definitions: [], branches: [], collections: [] });
  });

  it("reads whole-line comments of source files in unknown languages", () => {
    const facts = factsOf("lib/slug.ex", {
      at: 1,
      lines: ["+  # TODO: unicode", "+  String.trim(s) # trailing", "+-- SQL style"],
    });
    expect(facts.comments.map((c) => c.text)).toEqual(["TODO: unicode", "SQL style"]);
    expect(facts.branches).toEqual([]);
  });
});
