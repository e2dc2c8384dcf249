import { describe, expect, it } from "vitest";
import { Group } from "../../contracts/group.ts";
import {
  changedLineCount,
  clearPairs,
  scorePairs,
  sizeMisleadingPairs,
  touchedLines,
  unnecessaryLines,
} from "./pairwise-accuracy.ts";

// Fixtures and expected values checked against the Python reference script of the metric
// (unnecessary, touched_lines, clear_pairs, accuracy) on the same strings.
const REF =
  "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -10,2 +10,2 @@\n-x = 1\n+x = 2\n y = 3\n" +
  "diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n+++ b/tests/test_a.py\n@@ -1 +1,2 @@\n a\n+b\n";
const NEAR =
  "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -10,2 +10,3 @@\n-x = 1\n+x = 2\n+z = 0\n y = 3\n";
const FAR =
  `${NEAR}@@ -40,1 +41,3 @@\n q\n+r1\n+r2\n` +
  "diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n+++ b/tests/test_a.py\n@@ -1,1 +1,2 @@\n a\n+c\n" +
  "diff --git a/dist/x.zip b/dist/x.zip\nnew file mode 100644\nBinary files /dev/null and b/dist/x.zip differ\n";
const JUNK = `diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,9 @@\n${Array.from({ length: 9 }, (_, i) => `+n${i}\n`).join("")}`;

const group = Group.parse({
  schemaVersion: 1,
  id: "g",
  task: { id: "t" },
  candidates: [
    { id: "near", patch: NEAR, passed: true },
    { id: "far", patch: FAR, passed: true },
    { id: "junk", patch: JUNK, passed: true },
    { id: "near2", patch: `${NEAR}\n`, passed: false },
  ],
  reference: { patch: REF },
});

describe("reference-based pairwise accuracy (port of the reference script)", () => {
  it("records old-coordinate lines, additions at the current old line, and binary files", () => {
    expect(Object.fromEntries(touchedLines(FAR))).toEqual({
      "src/a.py": { lines: [10, 11, 11, 41, 41], binary: false },
      "tests/test_a.py": { lines: [2], binary: false },
      "dist/x.zip": { lines: [], binary: true },
    });
  });

  it("counts U: far lines, files the reference's code does not touch (tests of the reference excluded), +2 for archives", () => {
    expect(unnecessaryLines(NEAR, REF)).toBe(0);
    expect(unnecessaryLines(FAR, REF)).toBe(6);
    expect(unnecessaryLines(JUNK, REF)).toBe(9);
  });

  it("finds clear pairs only where U(b) ≥ max(8, 3·U(a) + 4), skipping identical patches, failing candidates included", () => {
    expect(clearPairs(group)).toEqual([
      ["near", "junk"],
      ["near2", "junk"],
    ]);
    expect(clearPairs({ ...group, reference: undefined })).toEqual([]);
  });

  it("scores hits, ties as half, and a candidate missing from the ranking as a miss", () => {
    expect(scorePairs(group, [["near"], ["near2", "junk"]])).toEqual({ hits: 1.5, pairs: 2 });
    expect(scorePairs(group, [["near"], ["far"]])).toEqual({ hits: 0, pairs: 2 });
    expect(scorePairs(group, undefined)).toEqual({ hits: 0, pairs: 2 });
  });
});

describe("size-misleading pairs", () => {
  it("are the clear pairs whose better patch changes more lines", () => {
    const big = `${NEAR}@@ -12,1 +13,8 @@\n y\n${"+a\n".repeat(7)}`;
    const g = Group.parse({
      ...group,
      candidates: [
        { id: "big-near", patch: big, passed: true },
        { id: "junk", patch: JUNK, passed: true },
        { id: "near", patch: NEAR, passed: true },
      ],
    });
    expect(changedLineCount(big)).toBe(10);
    expect(changedLineCount(JUNK)).toBe(9);
    expect(clearPairs(g)).toEqual([
      ["big-near", "junk"],
      ["near", "junk"],
    ]);
    // "near" beats "junk" by being smaller; only "big-near" beats a smaller patch.
    const small = `diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,8 @@\n${"+n\n".repeat(8)}`;
    const h = Group.parse({
      ...g,
      candidates: [
        { id: "big-near", patch: big, passed: true },
        { id: "small-junk", patch: small, passed: true },
      ],
    });
    expect(sizeMisleadingPairs(h)).toEqual([["big-near", "small-junk"]]);
    expect(sizeMisleadingPairs(g)).toEqual([["big-near", "junk"]]);
  });
});
