import { describe, expect, it } from "vitest";
import { DiffParseError, filePath, parseDiff, unquote } from "./parse.ts";

const MODIFY = `diff --git a/calc/ops.py b/calc/ops.py
index 3b18e51..a9c2f04 100644
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -1,4 +1,6 @@
 def div(a, b):
+    if b == 0:
+        raise ZeroDivisionError("division by zero")
     return a / b
 
 
@@ -10 +12 @@ def mul(a, b):
-    return a*b
+    return a * b
`;

describe("parseDiff", () => {
  it("reads paths, hunks and line numbers of a modification", () => {
    const [file] = parseDiff(MODIFY);
    expect(file).toMatchObject({
      oldPath: "calc/ops.py",
      newPath: "calc/ops.py",
      status: "modified",
      binary: false,
    });
    expect(file!.hunks).toHaveLength(2);
    const added = file!.hunks[0]!.lines.filter((l) => l.kind === "add");
    expect(added.map((l) => l.newLine)).toEqual([2, 3]);
    expect(file!.hunks[1]!.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ["del", 10, undefined],
      ["add", undefined, 12],
    ]);
  });

  it("reads added, deleted, renamed, symlink and binary files", () => {
    const patch = [
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -0,0 +1 @@",
      "+hello",
      "\\ No newline at end of file",
      "diff --git a/old.txt b/old.txt",
      "deleted file mode 100644",
      "--- a/old.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "diff --git a/x.py b/y.py",
      "similarity index 100%",
      "rename from x.py",
      "rename to y.py",
      "diff --git a/evil b/evil",
      "new file mode 120000",
      "--- /dev/null",
      "+++ b/evil",
      "@@ -0,0 +1 @@",
      "+/etc",
      "diff --git a/blob.bin b/blob.bin",
      "new file mode 100644",
      "Binary files /dev/null and b/blob.bin differ",
      "",
    ].join("\n");
    const files = parseDiff(patch);
    expect(files.map((f) => [f.status, f.oldPath, f.newPath, f.newMode ?? null, f.binary])).toEqual([
      ["added", null, "new.txt", "100644", false],
      ["deleted", "old.txt", null, null, false],
      ["renamed", "x.py", "y.py", null, false],
      ["added", null, "evil", "120000", false],
      ["added", null, "blob.bin", "100644", true],
    ]);
    expect(files.map(filePath)).toEqual(["new.txt", "old.txt", "y.py", "evil", "blob.bin"]);
  });

  it("unquotes C-style quoted paths, including octal UTF-8 bytes", () => {
    expect(unquote('"a/caf\\303\\251 \\"x\\".py"')).toBe('a/café "x".py');
    const [file] = parseDiff(
      'diff --git "a/sp ace.py" "b/sp ace.py"\n--- "a/sp ace.py"\n+++ "b/sp ace.py"\n@@ -1 +1 @@\n-a\n+b\n',
    );
    expect(file!.newPath).toBe("sp ace.py");
  });

  it("keeps traversal paths verbatim so the gate can reject them", () => {
    const [file] = parseDiff(
      "diff --git a/../../etc/x b/../../etc/x\nnew file mode 100644\n--- /dev/null\n+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n",
    );
    expect(file!.newPath).toBe("../../etc/x");
  });

  it("reads plain unified diffs as git apply does", () => {
    const [file] = parseDiff(
      "--- a/f.py\t2024-01-01 00:00:00\n+++ b/f.py\t2024-01-01 00:00:01\n@@ -1 +1 @@\n-a\n+b\n",
    );
    expect(file).toMatchObject({ oldPath: "f.py", newPath: "f.py", status: "modified" });
    const [root] = parseDiff("--- f.py.orig\n+++ f.py\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n");
    expect(root).toMatchObject({ oldPath: "f.py", newPath: "f.py" });
    expect(root!.hunks[0]!.lines.at(-1)).toMatchObject({ text: "b", noNewline: true });
  });

  it("rejects truncated hunks and stray hunk headers with the line number", () => {
    expect(() => parseDiff("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n")).toThrow(
      DiffParseError,
    );
    expect(() => parseDiff("text\n@@ -1 +1 @@\n-a\n+b\n")).toThrow(/line 2/);
  });

  it("reads names as git does: ---/+++ lines where nothing set them yet, slashes squashed, -p1 even from /tmp", () => {
    const [moved] = parseDiff("diff --git a/x b/x\n--- a/x\n+++ /tmp/x\n@@ -1 +1 @@\n-a\n+b\n");
    expect(moved).toMatchObject({ oldPath: "x", newPath: "tmp/x", status: "modified" });
    const [squashed] = parseDiff("--- a/d//x\n+++ b/d//x\n@@ -1 +1 @@\n-a\n+b\n");
    expect(squashed).toMatchObject({ oldPath: "d/x", newPath: "d/x" });
    expect(() => parseDiff("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ /tmp/y\n")).toThrow(
      /inconsistent new filename/,
    );
  });

  it("guesses -p0 from a plain diff of top-level files, for the rest of the patch", () => {
    const files = parseDiff(
      "--- f.orig\n+++ f\n@@ -1 +1 @@\n-a\n+b\ndiff --git d/x d/x\n--- d/x\n+++ d/x\n@@ -1 +1 @@\n-a\n+b\n",
    );
    expect(files.map(filePath)).toEqual(["f", "d/x"]);
  });

  it("leaves it to the tree whether a plain diff without old lines creates its file", () => {
    const [file] = parseDiff("--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n");
    expect(file).toMatchObject({ status: "modified", createsIfAbsent: true, plain: true });
    const [epoch] = parseDiff(
      "--- a/n.txt\t1970-01-01 00:00:00.000000000 +0000\n+++ b/n.txt\t2024-05-01 10:00:00 +0000\n@@ -0,0 +1 @@\n+x\n",
    );
    expect(epoch).toMatchObject({ status: "added", oldPath: null, newPath: "n.txt", plain: true });
  });

  it("refuses what git's reader refuses", () => {
    const refused = [
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n b\n", // no line added or removed
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b", // last line without its newline
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n", // fewer lines than counted
      "diff --git a/f b/f\nold mode 100644\nnew mode 100644\n", // nothing but garbage
      "diff --git a/f b/f\nwords\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n", // names kept from a skipped header
      "diff --git a/n b/n\n--- a/n\nnew file mode 100644\n+++ b/n\n@@ -0,0 +1 @@\n+x\n", // git aborts
      "diff --git a/f b/f\nnew file mode 100644\ndeleted file mode 100644\n", // inconsistent header lines
    ];
    for (const patch of refused) expect(() => parseDiff(patch), patch).toThrow(DiffParseError);
  });

  it("reads a binary payload git can read to its end (git diff --binary output)", () => {
    const files = parseDiff(
      "diff --git a/bin b/bin\nindex 0f49c4ae77b43dff338093c78e009676e7e308ba..f6ab0f2e49cf2afa315d88a46f03b7fe77bb52ed 100644\nGIT binary patch\nliteral 7\nOcmZQzX35PjN(BG}cLBQq\n\nliteral 9\nQcmZQzWJ=1+ODw7c00^)Gi2wiq\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
    );
    expect(files.map((f) => [filePath(f), f.binary])).toEqual([
      ["bin", true],
      ["f", false],
    ]);
  });

  it("stops where git stops: at a binary payload it cannot read", () => {
    const files = parseDiff(
      "diff --git a/g b/g\nnew file mode 100644\nGIT binary patch\nnonsense\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
    );
    expect(files.map((f) => [filePath(f), f.binary])).toEqual([["g", true]]);
  });

  it("returns no files for an empty patch", () => {
    expect(parseDiff("")).toEqual([]);
  });
});
