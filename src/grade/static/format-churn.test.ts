import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { formatChurn } from "./format-churn.ts";

const churnOf = (lines: string[]) =>
  formatChurn(viewCandidate("c", patch({ path: "src/a.js", hunks: [{ at: 10, lines }] })).files[0]!);

describe("formatChurn", () => {
  it("finds re-indented, re-quoted and re-punctuated lines", () => {
    const blocks = churnOf([" function f() {", "-  return g('a', b)", '+    return g("a", b);', " }"]);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ newLine: 11, lines: 1 });
  });

  it("finds a call re-wrapped over several lines", () => {
    const blocks = churnOf([
      "-  parts.push(a, b, c);",
      "+  parts.push(",
      "+    a,",
      "+    b,",
      "+    c,",
      "+  );",
    ]);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.lines).toBe(5);
  });

  it("does not count code re-indented because it moved into a new block", () => {
    expect(
      churnOf(["-  console.log(filename);", "+  if (showLogs) {", "+    console.log(filename);", "+  }"]),
    ).toEqual([]);
  });

  it("ignores runs that only add or remove blank lines, and real edits", () => {
    expect(churnOf([" a();", "-", " b();"])).toEqual([]);
    expect(churnOf(["-  return a + b;", "+  return a - b;"])).toEqual([]);
  });
});
