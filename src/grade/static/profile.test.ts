import { beforeAll, describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { lineKey, profileOf } from "./profile.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

describe("profileOf", () => {
  it("collects the identifiers, added lines and compared literals other candidates ask about", () => {
    const view = viewCandidate(
      "c",
      patch({
        path: "src/size.py",
        hunks: [
          {
            at: 3,
            lines: [
              " def size(n):",
              "-    return n",
              "+    if n == 1024:",
              '+        return "1 KB"',
              "+    return fmt(n)",
            ],
          },
        ],
      }),
    );
    const profile = profileOf(view, new Map(view.files.map((f) => [f.path, codeFacts(f, syntax)])));
    expect([...profile.words].sort()).toEqual(["KB", "def", "fmt", "if", "n", "return", "size"]);
    expect(profile.addedLines.has(lineKey("src/size.py", "returnfmt(n)"))).toBe(true);
    expect(profile.addedLines.has(lineKey("src/size.py", "returnn"))).toBe(false);
    expect([...profile.literals]).toEqual(["1024"]);
  });
});
