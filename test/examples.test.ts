import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTask, staticProblems } from "../scripts/examples/check-pack.mjs";
import { tokenEstimate } from "../scripts/examples/generate.mjs";
import {
  applyPatch,
  type ExampleRollout,
  listFiles,
  loadRollouts,
  loadTask,
  taskIds,
  tempDir,
  toolchainProblems,
} from "../scripts/examples/lib.mjs";
import { Rollout } from "../src/contracts/rollout.ts";
import { TaskSpec } from "../src/contracts/task-spec.ts";

/**
 * The example pack (examples/tasks, examples/rollouts) is data other modules and `gagar demo` rely on.
 * Fast structural checks always run; the hidden tests are run for real on the base repository and
 * with reference.patch (a few seconds). Verifying every recorded rollout's expected verdict takes
 * longer (~40 s on 2 cores) and runs with GAGAR_EXAMPLES_FULL=1, or via `node scripts/examples/check-pack.mjs`.
 */
const ids = taskIds();
const FULL = process.env.GAGAR_EXAMPLES_FULL === "1";
const STYLES = new Set([
  "clean-minimal",
  "clean-but-larger",
  "unnecessary-refactor",
  "debug-leftover",
  "format-churn",
  "test-edit",
  "hard-coded-output",
  "commented-out-code",
  "junk-file",
  "wrong-fix",
  "no-op",
  "partial-fix",
]);

describe("example pack", () => {
  it("has at least 3 Python and 3 JavaScript tasks", () => {
    const languages = ids.map((id) => loadTask(id).spec.language);
    expect(languages.filter((l) => l === "python").length).toBeGreaterThanOrEqual(3);
    expect(languages.filter((l) => l === "javascript" || l === "typescript").length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it("rollout ids are unique across the whole pack", () => {
    const all = ids.flatMap((id) => loadRollouts(id).map((r) => r.id));
    expect(new Set(all).size).toBe(all.length);
  });
});

describe.each(ids)("task %s", (id) => {
  const task = loadTask(id);
  const rollouts = loadRollouts(id);
  let workspace = "";

  beforeAll(() => {
    // One pristine copy of repo/ per task; `git apply --check` never modifies it.
    workspace = join(tempDir("gagar-examples-test-"), "workspace");
    cpSync(task.repoDir, workspace, { recursive: true });
  });
  afterAll(() => {
    if (workspace) rmSync(join(workspace, ".."), { recursive: true, force: true });
  });

  it("task.json validates against TaskSpec", () => {
    const parsed = TaskSpec.safeParse(task.spec);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(task.spec.id).toBe(id);
  });

  it("has repo/, hidden tests/ and reference.patch, and passes the pack's static checks", () => {
    expect(existsSync(task.repoDir)).toBe(true);
    expect(listFiles(task.testsDir).length).toBeGreaterThan(0);
    expect(task.reference).toMatch(/^diff --git a\//);
    expect(staticProblems(task, rollouts)).toEqual([]);
  });

  it("reference.patch applies with git apply", () => {
    expect(applyPatch(workspace, task.reference ?? "", { check: true })).toMatchObject({ ok: true });
  });

  it("has at least 8 rollouts that parse as Rollout records, with a mix of outcomes", () => {
    expect(rollouts.length).toBeGreaterThanOrEqual(8);
    for (const r of rollouts) {
      const parsed = Rollout.safeParse(r);
      expect(parsed.success ? [] : parsed.error.issues, r.id).toEqual([]);
      expect(r.taskId).toBe(id);
      expect(STYLES.has(r.meta?.style ?? ""), `${r.id} style ${r.meta?.style}`).toBe(true);
      expect(["pass", "fail"]).toContain(r.meta?.expected);
    }
    const pass = rollouts.filter((r) => r.meta?.expected === "pass");
    expect(rollouts.filter((r) => r.meta?.expected === "fail").length).toBeGreaterThanOrEqual(2);
    expect(new Set(pass.map((r) => r.meta?.style)).size).toBeGreaterThanOrEqual(4);
    expect(pass.some((r) => r.meta?.style === "clean-minimal")).toBe(true);
  });

  it("every rollout patch applies (or is marked as not applying)", () => {
    for (const r of rollouts) {
      const result = applyPatch(workspace, r.patch, { check: true });
      expect({ id: r.id, ok: result.ok, message: result.message }).toMatchObject({
        id: r.id,
        ok: r.meta?.applies !== false,
      });
    }
  });

  it("transcripts are well-formed chat-completions sessions", () => {
    for (const r of rollouts) checkTranscript(r);
  });

  it("hidden tests: failToPass fail and passToPass pass on the base, all pass with reference.patch", async () => {
    expect(toolchainProblems()).toEqual([]);
    const result = await checkTask(id, { rollouts: false, jobs: 2 });
    expect(result.problems).toEqual([]);
  }, 60_000);

  it.runIf(FULL)(
    "every rollout verifies as its meta.expected says (GAGAR_EXAMPLES_FULL=1)",
    async () => {
      const result = await checkTask(id, { rollouts: true, jobs: 2 });
      expect(result.problems).toEqual([]);
      expect(result.rows.filter((row) => !row.ok)).toEqual([]);
    },
    120_000,
  );
});

function checkTranscript(r: ExampleRollout): void {
  const t = r.trajectory;
  expect(t, r.id).toBeDefined();
  const messages = t?.messages ?? [];
  expect(messages[0]?.role, r.id).toBe("system");
  expect(messages[1]?.role, r.id).toBe("user");
  const assistants = messages.filter((m) => m.role === "assistant");
  expect(t?.turns, r.id).toBe(assistants.length);
  expect(t?.tokens, r.id).toBe(tokenEstimate(messages));
  expect(["submit", "max_turns"]).toContain(t?.finishReason);
  const tools = new Set(["shell", "read_file", "write_file", "str_replace", "submit"]);
  // Every tool call is answered by the next message, in order.
  for (let i = 2; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const call = m.tool_calls?.[0];
    expect(m.tool_calls?.length, `${r.id} message ${i}`).toBe(1);
    expect(tools.has(call?.function.name ?? ""), `${r.id} message ${i}`).toBe(true);
    expect(() => JSON.parse(call?.function.arguments ?? ""), `${r.id} message ${i}`).not.toThrow();
    expect(messages[i + 1], `${r.id} message ${i + 1}`).toMatchObject({
      role: "tool",
      tool_call_id: call?.id,
    });
  }
  const last = assistants.at(-1)?.tool_calls?.[0]?.function.name;
  expect(last === "submit", r.id).toBe(t?.finishReason === "submit");
}
