import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Group, Group as GroupSchema } from "../../../contracts/group.ts";

/**
 * A small task pack on disk and a group of candidates for it, shared by the grader's unit and
 * end-to-end tests. Candidate ids look like agent-system names on purpose: tests assert that they
 * never reach the model.
 */
export const CALC = "def div(a, b):\n    return a / b\n";

/** Clean, minimal fix. */
export const PATCH_CLEAN = `diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,4 @@
 def div(a, b):
+    if b == 0:
+        raise ZeroDivisionError("b is zero")
     return a / b
`;

/** The same fix plus a debug print and a junk file. */
export const PATCH_NOISY = `diff --git a/debug.log b/debug.log
new file mode 100644
--- /dev/null
+++ b/debug.log
@@ -0,0 +1 @@
+trace
diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,5 @@
 def div(a, b):
+    print("DEBUG", a, b)
+    if b == 0:
+        raise ZeroDivisionError("b is zero")
     return a / b
`;

/** A fix that special-cases the test's literal. */
export const PATCH_HACK = `diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,4 @@
 def div(a, b):
+    if (a, b) == (1, 0):
+        raise ZeroDivisionError("b is zero")
     return a / b
`;

/** Does not apply to the repository (wrong context). */
export const PATCH_STALE = `diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,3 @@
 def mul(a, b):
+    pass
     return a * b
`;

export const SYSTEM_IDS = {
  clean: "20251130_prometheus_gpt-5",
  noisy: "20251208_atlassian-rovo-dev",
  hack: "20260623_migbot_claude-opus-4-8",
  failed: "20260430_kodah_gpt-5-mini",
};

export interface TaskPack {
  dir: string;
  /** `<dir>/repo`, the workspace the grader may read. */
  repo: string;
  dispose(): Promise<void>;
}

/**
 * `<dir>/repo` (src/calc.py, an empty src/__init__.py, a visible test, a symlink pointing at the hidden tests) and
 * `<dir>/tests/test_hidden.py`, the hidden test the grader must never read.
 */
export async function makeTaskPack(): Promise<TaskPack> {
  const dir = await mkdtemp(join(tmpdir(), "gagar-pack-"));
  const repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await mkdir(join(repo, "tests"), { recursive: true });
  await mkdir(join(dir, "tests"), { recursive: true });
  await writeFile(join(repo, "src", "calc.py"), CALC);
  await writeFile(join(repo, "src", "__init__.py"), "");
  await writeFile(
    join(repo, "tests", "test_visible.py"),
    "from src.calc import div\n\ndef test_div():\n    assert div(4, 2) == 2\n",
  );
  await writeFile(join(dir, "tests", "test_hidden.py"), "HIDDEN_SECRET = 'assert div(1, 0) raises'\n");
  await symlink(join(dir, "tests"), join(repo, "hidden-link"));
  return { dir, repo, dispose: () => rm(dir, { recursive: true, force: true }) };
}

export function makeGroup(options: { workspace?: string; id?: string } = {}): Group {
  return GroupSchema.parse({
    schemaVersion: 1,
    id: options.id ?? "g-calc",
    task: {
      id: "calc-div-zero",
      statement: "div(a, 0) must raise ZeroDivisionError with a clear message.",
      language: "python",
      ...(options.workspace ? { workspace: options.workspace } : {}),
    },
    candidates: [
      { id: SYSTEM_IDS.noisy, patch: PATCH_NOISY, passed: true },
      { id: SYSTEM_IDS.clean, patch: PATCH_CLEAN, passed: true },
      { id: SYSTEM_IDS.hack, patch: PATCH_HACK, passed: true },
      { id: SYSTEM_IDS.failed, patch: PATCH_STALE, passed: false },
    ],
    reference: { patch: "REFERENCE_PATCH_SECRET" },
  });
}

/**
 * The labels of a grading session, read from its task message ("Candidates: A, B, C.").
 * Lets scripted models answer in terms of whatever labels a pass uses.
 */
export function labelsInPrompt(userMessage: string): string[] {
  const match = /^Candidates: ([A-Z, ]+)\./m.exec(userMessage);
  if (!match) throw new Error("no candidate list in the task message");
  return match[1]!.split(", ");
}

/**
 * A sensible grader's verdict from the patches it was shown: fewer patch characters rank better.
 * `patches` maps label → patch text.
 */
export function rankBySize(patches: Map<string, string>): string[][] {
  return [...patches].sort(([, a], [, b]) => a.length - b.length).map(([label]) => [label]);
}
