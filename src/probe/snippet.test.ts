import { describe, expect, it } from "vitest";
import { MAX_SNIPPET_CHARS, planSnippet, SnippetError } from "./snippet.ts";

/** The module a snippet becomes (the probe module planProbes renders from it, helper excluded). */
async function probeModule(runner: string, code: string) {
  const plan = await planSnippet(runner, "tests", code);
  const module = plan.probe.files.find((f) => plan.probe.testFiles.includes(f.path))!;
  return { plan, text: module.content };
}

describe("planSnippet", () => {
  it("observes a lone expression, or the last one after statements, as its value", async () => {
    const lone = await probeModule("pytest", "expand_year(48)");
    expect(lone.plan.observedKey).toBe("a0");
    expect(lone.text).toContain('_gagar_probe.value("a0", "truthy", lambda: ((expand_year(48))))');
    const after = await probeModule(
      "pytest",
      "import shortdate\nfrom shortdate import expand_year\nassert expand_year(47) == 2047\nexpand_year(52)",
    );
    expect(after.plan.observedKey).toBe("a1");
    // Python imports stay in the test body, where they run.
    expect(after.text).toMatch(/\n {4}import shortdate\n {4}from shortdate import expand_year\n/);
    expect(after.text).toContain('_gagar_probe.check("a0", "==", lambda: (expand_year(47)), lambda: (2047))');
  });

  it("leaves code ending in an assertion or an assignment without an observed value", async () => {
    for (const code of ["x = expand_year(1)", "assert expand_year(1) == 2001"])
      expect((await planSnippet("pytest", "tests", code)).observedKey).toBeUndefined();
    const js = await planSnippet(
      "node:test",
      "test",
      'import { f } from "../src/index.js";\nassert.equal(f(1), 2);',
    );
    expect(js.observedKey).toBeUndefined();
  });

  it("dedents a Python snippet pasted from inside a test", async () => {
    const { plan } = await probeModule("pytest", "    x = expand_year(1)\n    x + 1");
    expect(plan.observedKey).toBe("a0");
  });

  it("hoists an ES module's imports out of the test body", async () => {
    const { text } = await probeModule(
      "node:test",
      'import { retryDelay } from "../src/index.js";\nretryDelay(3)',
    );
    const [header, body] = text.split('test("gagar_run_probe"');
    expect(header).toContain('import { retryDelay } from "../src/index.js";');
    expect(header).toContain('import { test } from "node:test";');
    expect(body).not.toContain("import ");
    expect(body).toContain('"a0", "truthy", () => ((retryDelay(3)))');
  });

  it("refuses what a model must fix, and runners it cannot write a module for", async () => {
    await expect(planSnippet("pytest", "tests", " \n ")).rejects.toThrow(/code is empty/);
    await expect(planSnippet("pytest", "tests", "x".repeat(MAX_SNIPPET_CHARS + 1))).rejects.toThrow(
      /at most 4000/,
    );
    await expect(planSnippet("pytest", "tests", "def (")).rejects.toThrow(/does not parse as Python: line 1/);
    await expect(planSnippet("mocha", "test", "f(")).rejects.toThrow(/does not parse as JavaScript/);
    await expect(planSnippet("jest", "test", "f()")).rejects.toBeInstanceOf(SnippetError);
  });
});
