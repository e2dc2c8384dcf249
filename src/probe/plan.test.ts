import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTree } from "../../test/support/probe-fixtures.ts";
import { loadSyntax } from "../grade/static/syntax.ts";
import { JS_HELPER_NAME, planProbes } from "./plan.ts";

const REPO = join(import.meta.dirname, "..", "..");

/** Test modules of the example pack and of the probe fixtures, by runner. */
function corpus(): { runner: string; tests: Map<string, string> }[] {
  const out: { runner: string; tests: Map<string, string> }[] = [];
  for (const task of readdirSync(join(REPO, "examples", "tasks"))) {
    const spec = JSON.parse(readFileSync(join(REPO, "examples", "tasks", task, "task.json"), "utf8"));
    out.push({
      runner: spec.language === "python" ? "pytest" : "node:test",
      tests: readTree(join(REPO, "examples", "tasks", task, "tests")),
    });
  }
  for (const name of readdirSync(join(REPO, "test", "fixtures", "probe"))) {
    const dir = join(REPO, "test", "fixtures", "probe", name);
    const { runner } = JSON.parse(readFileSync(join(dir, "fixture.json"), "utf8"));
    out.push({ runner, tests: readTree(join(dir, "tests")) });
  }
  return out;
}

describe("probe plans", () => {
  it("nudge only the focused tests' inputs; every other test keeps its base probe, and the focused ones are planned as without focus", async () => {
    for (const { runner, tests } of corpus()) {
      const full = await planProbes({ runner, tests });
      const ids = [...new Set(full.probes.map((p) => p.testId))];
      const focused = new Set(ids.filter((_, i) => i % 2 === 0));
      const plan = await planProbes({ runner, tests, focus: (id) => focused.has(id) });
      expect(plan.probes).toEqual(
        full.probes.filter((p) => focused.has(p.testId) || p.perturbation === null),
      );
      expect(new Set(plan.probes.map((p) => p.testId))).toEqual(new Set(ids));
    }
  });

  it("are the same for the same tests, with unique probe ids, each test's base first", async () => {
    for (const { runner, tests } of corpus()) {
      const plan = await planProbes({ runner, tests });
      expect(await planProbes({ runner, tests })).toEqual(plan);
      expect(new Set(plan.probes.map((p) => p.id)).size).toBe(plan.probes.length);
      const firstOfTest = new Map<string, string>();
      for (const p of plan.probes) if (!firstOfTest.has(p.testId)) firstOfTest.set(p.testId, p.id);
      for (const [testId, first] of firstOfTest) expect(first).toBe(`${testId}#base`);
      expect(plan.skipped).toEqual([]);
    }
  });

  it("write probe modules that parse, beside the modules they copy", async () => {
    const syntax = await loadSyntax();
    for (const { runner, tests } of corpus()) {
      const plan = await planProbes({ runner, tests });
      for (const file of plan.files) {
        if (file.path.endsWith(JS_HELPER_NAME)) continue;
        const language = file.path.endsWith(".py")
          ? "python"
          : file.path.endsWith(".ts")
            ? "typescript"
            : "javascript";
        const broken = syntax.withTree(language, file.content, (root) => root.hasError);
        expect(broken, `${runner} ${file.path}`).toBe(false);
      }
      expect(plan.testFiles.every((f) => plan.files.some((p) => p.path === f))).toBe(true);
      if (runner !== "pytest")
        for (const f of plan.testFiles)
          expect(plan.files.map((p) => p.path)).toContain(
            `${f.slice(0, f.lastIndexOf("/"))}/${JS_HELPER_NAME}`,
          );
    }
  });

  it("say which modules give no probes, and why", async () => {
    const tests = new Map([
      ["tests/test_a.py", "def helper():\n    return 1\n"],
      ["tests/notes.txt", "not a module"],
    ]);
    expect((await planProbes({ runner: "pytest", tests })).skipped).toEqual([
      { file: "tests/notes.txt", reason: "not a python test module" },
      { file: "tests/test_a.py", reason: "declares no test the probes can copy" },
    ]);
    expect((await planProbes({ runner: "junit", tests })).skipped.map((s) => s.reason)).toEqual([
      'runner "junit" has no probe adapter',
      'runner "junit" has no probe adapter',
    ]);
  });

  it("keep two declarations of one test id apart", async () => {
    const text =
      'it("same", () => { assert.equal(f(1), 2); });\nit("same", () => { assert.equal(f(3), 4); });\n';
    const plan = await planProbes({ runner: "mocha", tests: new Map([["test/a.spec.js", text]]) });
    expect([...new Set(plan.probes.map((p) => p.testId))]).toEqual([
      "test/a.spec.js::same",
      "test/a.spec.js::same~2",
    ]);
  });
});
