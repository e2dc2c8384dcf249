/**
 * Regression tests for patch forms real agents write and `git apply` accepts (issue 11: 16 of 1,729
 * public SWE-PolyBench predictions were refused by an earlier gate). For each form, `git apply --check`
 * must accept the original, the gate must accept it, and applying the gate's output must leave exactly
 * the tree that `git apply` of the original leaves; the paths the gate sees must be the paths git
 * reports (`git apply --numstat`). The forms the gate refuses (gate-refusals.ts) stay refused in every header style.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filePath } from "../../diff/parse.ts";
import { gatePatch } from "./patch-gate.ts";
import { PathPolicy } from "./protected-paths.ts";

const BASE: Record<string, string> = {
  "pkg/core.py": "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n",
  "pkg/util.py": "A = 1\n\nB = 2\n",
  "notes.txt": "one\ntwo\nthree",
  "tests/test_core.py": "from pkg.core import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
};

const policy = new PathPolicy({ hiddenTests: ["tests/test_core.py"], testIdFiles: [], protectedGlobs: [] });
const scratch = mkdtempSync(join(tmpdir(), "gagar-gate-forms-"));
let counter = 0;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files = BASE): string {
  const dir = join(scratch, `t${++counter}`);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CEILING_DIRECTORIES: scratch,
};

function gitApply(dir: string, patch: string, ...args: string[]): string {
  const file = join(scratch, `p${++counter}.diff`);
  writeFileSync(file, patch);
  return execFileSync("git", ["apply", ...args, file], { cwd: dir, env: GIT_ENV, encoding: "utf8" });
}

function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else out[prefix + name] = readFileSync(path, "utf8");
    }
  };
  walk(dir, "");
  return out;
}

/** Paths git reports for a patch (numstat), in order. */
function gitPaths(patch: string): string[] {
  const out = gitApply(tree(), patch, "--numstat", "-z");
  return out
    .split("\0")
    .filter(Boolean)
    .map((row) => row.split("\t")[2]!);
}

const FORMS: [string, string][] = [
  [
    "a blank context line at a hunk's end, then a stray empty line",
    "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1,4 +1,4 @@\n def f(x):\n-    return x\n+    return x + 1\n \n \n" +
      "\n" +
      "diff --git a/pkg/util.py b/pkg/util.py\n--- a/pkg/util.py\n+++ b/pkg/util.py\n@@ -1,2 +1,2 @@\n-A = 1\n+A = 10\n \n",
  ],
  [
    "trailing empty lines after a blank context line",
    "diff --git a/pkg/util.py b/pkg/util.py\nindex 1111111..2222222 100644\n--- a/pkg/util.py\n+++ b/pkg/util.py\n@@ -1,2 +1,2 @@\n-A = 1\n+A = 10\n \n\n\n\n",
  ],
  [
    "a plain unified diff with timestamps (diff -u)",
    "--- a/pkg/core.py\t2024-05-01 10:00:00.000000000 +0000\n+++ b/pkg/core.py\t2024-05-01 10:05:00.000000000 +0000\n@@ -4,3 +4,3 @@\n \n def g(y):\n-    return y\n+    return -y\n",
  ],
  [
    "a plain unified diff of a file at the root, without prefixes",
    "--- notes.txt.orig\n+++ notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\\ No newline at end of file\n",
  ],
  [
    "several plain unified diffs, one creating a file",
    "--- a/pkg/util.py\n+++ b/pkg/util.py\n@@ -3 +3 @@\n-B = 2\n+B = 20\n--- /dev/null\n+++ b/pkg/extra.py\n@@ -0,0 +1,2 @@\n+def h():\n+    return 3\n",
  ],
  [
    "a prefix other than a/ and b/",
    "diff --git x/pkg/util.py y/pkg/util.py\n--- x/pkg/util.py\n+++ y/pkg/util.py\n@@ -1,2 +1,2 @@\n-A = 1\n+A = 11\n \n",
  ],
  [
    "a commit message before and words after",
    "Subject: fix g\n\nExplain the change.\n---\n pkg/core.py | 2 +-\n\ndiff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -5,2 +5,2 @@\n def g(y):\n-    return y\n+    return y * 2\n-- \n2.39.2\n",
  ],
];

describe("patch forms git apply accepts", () => {
  it.each(FORMS)("accepts %s and applies exactly what git applies", (_name, patch) => {
    const byGit = tree();
    gitApply(byGit, patch, "--check");
    gitApply(byGit, patch);
    const gated = gatePatch(patch, { policy });
    expect(gated.ok).toBe(true);
    if (!gated.ok) return;
    expect(gated.files.map(filePath)).toEqual(gitPaths(patch));
    const byGate = tree();
    gitApply(byGate, gated.patch);
    expect(contents(byGate)).toEqual(contents(byGit));
  });

  it("still refuses forbidden paths and strips protected ones in plain unified diffs", () => {
    const hook = "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+touch /tmp/pwned\n";
    expect(gatePatch(hook, { policy })).toMatchObject({ ok: false });
    const conftest = "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1 @@\n+import os\n";
    expect(gatePatch(conftest, { policy })).toMatchObject({ ok: true, patch: "", stripped: ["conftest.py"] });
    const tests =
      "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n@@ -5 +5 @@\n-    assert f(1) == 1\n+    assert True\n";
    expect(gatePatch(tests, { policy })).toMatchObject({ ok: true, stripped: ["tests/test_core.py"] });
    const up = "--- a/../outside.py\n+++ b/../outside.py\n@@ -1 +1 @@\n-a\n+b\n";
    expect(gatePatch(up, { policy })).toMatchObject({ ok: false });
  });

  it("sees the path git applies to when the prefix is not a/ (no hidden test slips through)", () => {
    const patch =
      "diff --git x/tests/test_core.py x/tests/test_core.py\n--- x/tests/test_core.py\n+++ x/tests/test_core.py\n@@ -5 +5 @@\n-    assert f(1) == 1\n+    assert True\n";
    expect(gitPaths(patch)).toEqual(["tests/test_core.py"]);
    expect(gatePatch(patch, { policy })).toMatchObject({ ok: true, stripped: ["tests/test_core.py"] });
  });

  it("refuses a hunk header outside any file, as git does", () => {
    expect(gatePatch("some text\n@@ -1 +1 @@\n-a\n+b\n", { policy }).ok).toBe(false);
  });
});
