import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Candidate } from "../../contracts/group.ts";
import { CandidateTrees } from "./candidate-trees.ts";
import {
  makeGroup,
  makeTaskPack,
  PATCH_STALE,
  SYSTEM_IDS,
  type TaskPack,
} from "./testing/grader-fixtures.ts";
import { createToolContext, type ToolContext } from "./tool-context.ts";
import { executeTool } from "./toolbox.ts";

let pack: TaskPack;
let withRepo: ToolContext;
let patchesOnly: ToolContext;

function context(workspace: string | undefined): ToolContext {
  const group = makeGroup({ workspace });
  const byId = new Map(group.candidates.map((c) => [c.id, c]));
  const shown: Array<{ label: string; candidate: Candidate }> = [
    { label: "A", candidate: byId.get(SYSTEM_IDS.clean)! },
    { label: "B", candidate: byId.get(SYSTEM_IDS.noisy)! },
    { label: "C", candidate: { ...byId.get(SYSTEM_IDS.hack)!, patch: PATCH_STALE } },
  ];
  return createToolContext(
    new CandidateTrees(workspace, new Map(shown.map((s) => [s.candidate.id, s.candidate.patch]))),
    shown,
  );
}

const run = (ctx: ToolContext, name: string, args: unknown) =>
  executeTool(ctx, { id: "c", name, arguments: typeof args === "string" ? args : JSON.stringify(args) });

beforeAll(async () => {
  pack = await makeTaskPack();
  withRepo = context(pack.repo);
  patchesOnly = context(undefined);
});
afterAll(async () => {
  await withRepo.trees.dispose();
  await patchesOnly.trees.dispose();
  await pack.dispose();
});

describe("inspection tools over a repository", () => {
  it("lists the base tree and a candidate's patched copy", async () => {
    const base = await run(withRepo, "list_files", {});
    expect(base.split("\n")).toEqual(["src/__init__.py", "src/calc.py", "tests/test_visible.py"]);
    expect(await run(withRepo, "list_files", { candidate: "B" })).toContain("debug.log");
    expect(await run(withRepo, "list_files", { path: "src/calc.py", candidate: "b" })).toBe("src/calc.py");
    expect(await run(withRepo, "list_files", { path: "src", candidate: null })).toBe(
      "src/__init__.py\nsrc/calc.py",
    );
  });

  it("reads numbered line ranges of the patched file", async () => {
    const text = await run(withRepo, "read_file", {
      path: "src/calc.py",
      candidate: "A",
      start_line: 2,
      end_line: 3,
    });
    expect(text).toBe(
      'src/calc.py (lines 2-3 of 4; read on with start_line 4)\n2|     if b == 0:\n3|         raise ZeroDivisionError("b is zero")',
    );
    expect(await run(withRepo, "read_file", { path: "src/calc.py" })).toContain("1| def div(a, b):");
    expect(await run(withRepo, "read_file", { path: "./src/__init__.py" })).toBe(
      "./src/__init__.py (empty file)",
    );
  });

  it("never reaches the hidden tests beside the repository, nor .git", async () => {
    for (const path of [
      "../tests/test_hidden.py",
      "hidden-link/test_hidden.py",
      "/etc/passwd",
      ".git/config",
    ]) {
      const text = await run(withRepo, "read_file", { path, candidate: "A" });
      expect(text).toMatch(/^error: /);
      expect(text).not.toContain("HIDDEN_SECRET");
    }
    expect(await run(withRepo, "search", { pattern: "HIDDEN_SECRET" })).toBe("no matches");
  });

  it("searches by regular expression, falling back to literal text", async () => {
    expect(await run(withRepo, "search", { pattern: "print\\(", candidate: "B" })).toBe(
      'src/calc.py:2:     print("DEBUG", a, b)',
    );
    expect(await run(withRepo, "search", { pattern: "div(a", candidate: "A" })).toMatch(
      /literal text\)\nsrc\/calc.py:1: def div\(a, b\):/,
    );
  });

  it("compares two candidates' trees under their labels, without scratch paths", async () => {
    const diff = await run(withRepo, "compare_patches", { a: "A", b: "B" });
    expect(diff).toContain("+++ B/debug.log");
    expect(diff).toContain("--- A/src/calc.py");
    expect(diff).toContain('+    print("DEBUG", a, b)');
    expect(diff).not.toMatch(/tree-|gagar-grader/);
  });

  it("returns failures as error results: a patch that does not apply, bad labels, bad arguments, unknown tools", async () => {
    expect(await run(withRepo, "read_file", { path: "src/calc.py", candidate: "C" })).toMatch(
      /^error: this candidate's patch does not apply/,
    );
    expect(await run(withRepo, "view_patch", { candidate: "Q" })).toBe(
      'error: unknown candidate "Q"; the candidates are A, B, C',
    );
    expect(await run(withRepo, "view_patch", '{"candidate": "A"')).toMatch(
      /^error: arguments are not valid JSON/,
    );
    expect(await run(withRepo, "read_file", { candidate: "A" })).toMatch(
      /^error: invalid read_file arguments: path/,
    );
    expect(await run(withRepo, "delete_everything", {})).toMatch(/^error: unknown tool/);
  });

  it("shows test verdicts without the candidate's real id", async () => {
    const text = await run(withRepo, "view_test_results", { candidate: "A" });
    expect(text).toMatch(/^A: passed the hidden tests \(reward 1\)/);
    expect(text).not.toContain(SYSTEM_IDS.clean);
  });
});

describe("inspection tools without a repository", () => {
  it("lists the files each patch changes and says why", async () => {
    const text = await run(patchesOnly, "list_files", {});
    expect(text).toContain("no repository in this session");
    expect(text).toContain("B  A debug.log (+1 -0)");
    expect(text).toContain("A  M src/calc.py (+2 -0)");
  });

  it("reads a file a candidate adds, and refuses others with the reason", async () => {
    expect(await run(patchesOnly, "read_file", { path: "debug.log", candidate: "B" })).toBe(
      "debug.log (lines 1-1 of 1)\n1| trace",
    );
    expect(await run(patchesOnly, "read_file", { path: "src/calc.py", candidate: "A" })).toMatch(
      /^error: no repository/,
    );
  });

  it("searches the patches' lines and diffs patches file by file", async () => {
    expect(await run(patchesOnly, "search", { pattern: "DEBUG" })).toContain(
      'B src/calc.py:2:     print("DEBUG", a, b)',
    );
    const diff = await run(patchesOnly, "compare_patches", { a: "A", b: "B" });
    expect(diff).toContain("diff of the two patches");
    expect(diff).toContain("B/debug.log");
  });
});
