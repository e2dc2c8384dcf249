import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { patchCase } from "../../test/support/patch-forms.ts";
import { forbiddenReason } from "../verify/gate/protected-paths.ts";
import { formatDiff, renderedRecord } from "./format.ts";
import { DiffParseError, parseDiff } from "./parse.ts";

const RUNS = Number(process.env.GAGAR_FORMAT_RUNS ?? 2000);

describe("formatDiff", () => {
  it(
    "renders what it is given so that reading the rendering gives it back",
    () => {
      let read = 0;
      fc.assert(
        fc.property(patchCase, ({ patch }) => {
          let files: ReturnType<typeof parseDiff>;
          try {
            files = parseDiff(patch);
          } catch (e) {
            if (e instanceof DiffParseError) return;
            throw e;
          }
          // The gate refuses these before rendering: binary sections (never rendered), odd headers,
          // forbidden names (among them `a//b`, which git reads unsquashed off a `diff --git` line only).
          const refused = (f: (typeof files)[number]) =>
            f.binary ||
            f.anomaly ||
            [f.oldPath, f.newPath].some((p) => p !== null && forbiddenReason(p) !== null);
          if (files.some(refused)) return;
          read++;
          expect(parseDiff(formatDiff(files))).toEqual(files.map(renderedRecord));
        }),
        { numRuns: RUNS },
      );
      expect(read).toBeGreaterThan(RUNS / 4);
    },
    30_000 + RUNS * 20,
  );

  it("keeps a plain diff plain where git takes the mode or the file's existence from the tree", () => {
    const creates = "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n";
    expect(formatDiff(parseDiff(creates))).toBe('--- "a/new.txt"\n+++ "b/new.txt"\n@@ -0,0 +1,1 @@\n+x\n');
    const deletes = "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    expect(formatDiff(parseDiff(deletes))).toBe('--- "a/old.txt"\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n');
  });

  it("ends a header without hunks before a plain section, which git would otherwise read into it", () => {
    const files = [
      ...parseDiff("diff --git a/e.txt b/e.txt\nnew file mode 100644\n"),
      ...parseDiff("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n"),
    ];
    expect(files.map((f) => [f.status, f.newPath])).toEqual([
      ["added", "e.txt"],
      ["added", "n.txt"],
    ]);
    expect(parseDiff(formatDiff(files))).toEqual(files);
  });
});
