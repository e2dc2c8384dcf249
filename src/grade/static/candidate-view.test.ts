import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { newSideLines, viewCandidate } from "./candidate-view.ts";

const fix = patch({
  path: "textkit/slug.py",
  hunks: [
    {
      at: 10,
      lines: [
        '     value = _NON_WORD.sub("", value).strip().lower()',
        '-    return re.sub(r"[\\s]+", "-", value)',
        '+    value = re.sub(r"[\\s-]+", "-", value)',
        '+    return value.strip("-")',
        " ",
      ],
    },
  ],
});

describe("viewCandidate", () => {
  it("places every change in old-file coordinates and new-file lines", () => {
    const view = viewCandidate("c1", fix);
    expect(view.unreadable).toBeUndefined();
    const [file] = view.files;
    expect(file).toMatchObject({
      path: "textkit/slug.py",
      key: "textkit/slug.py",
      role: "source",
      language: "python",
    });
    expect(file!.changes.map((c) => [c.kind, c.anchor, c.newLine])).toEqual([
      ["del", 11, 11],
      ["add", 12, 11],
      ["add", 12, 12],
    ]);
    expect(file!.changes[1]!.norm).toBe('value=re.sub(r"[\\s-]+","-",value)');
    expect(
      newSideLines(file!)
        .filter((l) => l.added)
        .map((l) => l.newLine),
    ).toEqual([11, 12]);
  });

  it("keys new files by their new path, so two candidates adding the same file compare", () => {
    const view = viewCandidate(
      "c",
      patch({ path: "src/units.js", status: "added", hunks: [{ at: 1, lines: ["+x"] }] }),
    );
    expect(view.files[0]).toMatchObject({ key: "+src/units.js", status: "added" });
    expect(view.files[0]!.changes[0]).toMatchObject({ anchor: 1, newLine: 1 });
  });

  it("accepts blank lines between file sections, as agents emit them", () => {
    const sections = `${fix}\n${patch({ path: "b.py", hunks: [{ at: 1, lines: [" a", "+b"] }] })}\n`;
    const view = viewCandidate("c", sections);
    expect(view.unreadable).toBeUndefined();
    expect(view.files.map((f) => f.path)).toEqual(["textkit/slug.py", "b.py"]);
  });

  it("accepts plain `diff -u` output without git headers", () => {
    const plain = ["--- a/lib.py", "+++ b/lib.py", "@@ -1,2 +1,2 @@", " x = 1", "-y = 2", "+y = 3", ""].join(
      "\n",
    );
    const view = viewCandidate("c", plain);
    expect(view.unreadable).toBeUndefined();
    expect(view.files[0]).toMatchObject({ path: "lib.py", status: "modified" });
  });

  it("reads CRLF patches like LF ones", () => {
    const crlf = viewCandidate("c", fix.replace(/\n/g, "\r\n"));
    expect(crlf.files.map((f) => f.changes.map((c) => c.text))).toEqual(
      viewCandidate("c", fix).files.map((f) => f.changes.map((c) => c.text)),
    );
  });

  it("marks text that is not a diff as unreadable instead of throwing", () => {
    expect(viewCandidate("c", "I fixed it by editing utils.py").unreadable).toMatch(/not a git diff/);
    expect(
      viewCandidate("c", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n x\n").unreadable,
    ).toMatch(/patch line/);
  });

  it("reads an empty patch as no change", () => {
    expect(viewCandidate("c", "")).toEqual({ id: "c", files: [] });
  });
});
