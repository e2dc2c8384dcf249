import { describe, expect, it } from "vitest";
import { splitCommand } from "./argv-split.ts";

describe("splitCommand", () => {
  it("splits words and keeps quoted text together", () => {
    expect(splitCommand("python3 -m pytest  --junitxml={junit} {tests}")).toEqual([
      "python3",
      "-m",
      "pytest",
      "--junitxml={junit}",
      "{tests}",
    ]);
    expect(splitCommand(`a 'b c' "d \\"e\\" $f" g\\ h ''`)).toEqual(["a", "b c", 'd "e" $f', "g h", ""]);
    expect(splitCommand("x'y'\"z\"")).toEqual(["xyz"]);
  });

  it("refuses unterminated quotes", () => {
    expect(() => splitCommand("a 'b")).toThrow("unterminated ' quote");
    expect(() => splitCommand('a "b')).toThrow('unterminated " quote');
  });
});
