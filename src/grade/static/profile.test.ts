import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { lineKey, profileOf } from "./profile.ts";

describe("profileOf", () => {
  it("collects the identifiers, added lines and source literals (with counts) other candidates ask about", () => {
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
              "+    return fmt(n, 'KB', 'KB')",
            ],
          },
        ],
      }),
    );
    const profile = profileOf(view);
    expect([...profile.words].sort()).toEqual(["KB", "def", "fmt", "if", "n", "return", "size"]);
    expect(profile.addedLines.has(lineKey("src/size.py", "returnfmt(n,'KB','KB')"))).toBe(true);
    expect(profile.addedLines.has(lineKey("src/size.py", "returnn"))).toBe(false);
    expect([...profile.literals]).toEqual([
      ["1024", 1],
      ["1 KB", 1],
      ["KB", 2],
    ]);
  });
});
