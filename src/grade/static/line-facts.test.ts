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
      expect.objectContaining({
        subject: "s",
        compared: ["abc"],
        returned: '"  abc"',
        returnedValues: ["  abc"],
      }),
    ]);
    expect(facts.definitions).toEqual([
      expect.objectContaining({ name: "pad", kind: "function", private: true, external: false }),
    ]);
  });

  it("reads nothing from data and docs files", () => {
    const facts = factsOf("notes.txt", { at: 1, lines: ["+if x == 'y': return 'z'", "+# TODO"] });
    expect(facts).toEqual({ comments: [], definitions: [], branches: [] });
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
