import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ConfigError, type InputError } from "../errors.ts";
import { selectBackend } from "../sandbox/select.ts";
import { loadTaskPack } from "../verify/pack/task-pack.ts";
import { mountsBelow } from "../verify/session/stale-sessions.ts";
import { Verifier } from "../verify/verifier.ts";
import { verifyRollouts } from "../verify/verify-rollouts.ts";
import { importSweBench } from "./import.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const repos = join(root, "repos");
const repo = join(repos, "acme", "calc");
let base = "";

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).trim();
}

function write(path: string, text: string): void {
  mkdirSync(join(repo, path, ".."), { recursive: true });
  writeFileSync(join(repo, path), text);
}

/** A unified diff made by git from the working tree (then reset), so it applies to `base`. */
function diffOf(edit: () => void): string {
  edit();
  git("add", "-A");
  const patch = git("diff", "--cached", "HEAD");
  git("reset", "-q", "--hard", "HEAD");
  git("clean", "-qfd");
  return `${patch}\n`;
}

beforeAll(() => {
  mkdirSync(repo, { recursive: true });
  git("init", "-q");
  write("calc.py", "def div(a, b):\n    return a / b\n");
  write("tests/test_calc.py", "from calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n");
  // git archive would drop tests/ and rewrite _version.py; the importer must not.
  write(".gitattributes", "tests export-ignore\n_version.py export-subst\n");
  write("_version.py", 'version = "$Format:%H$"\n');
  git("add", "-A");
  git("commit", "-qm", "base");
  base = git("rev-parse", "HEAD");
  write("calc.py", "def div(a, b):\n    raise NotImplementedError  # a later commit the task must not see\n");
  git("commit", "-qam", "future");
  git("checkout", "-q", base);
});

function instances(extra: Record<string, unknown> = {}): string {
  const testPatch = diffOf(() => {
    write(
      "tests/test_calc.py",
      "import pytest\nfrom calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n\n\ndef test_div_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n",
    );
    write("tests/test_more.py", "from calc import div\n\n\ndef test_half():\n    assert div(1, 2) == 0.5\n");
  });
  const patch = diffOf(() =>
    write("calc.py", 'def div(a, b):\n    if b == 0:\n        raise ValueError("zero")\n    return a / b\n'),
  );
  const instance = {
    instance_id: "acme__calc-1",
    repo: "acme/calc",
    base_commit: base,
    patch,
    test_patch: testPatch,
    FAIL_TO_PASS: JSON.stringify(["tests/test_calc.py::test_div_zero"]),
    PASS_TO_PASS: ["tests/test_calc.py::test_div", "tests/test_more.py::test_half"],
    problem_statement: "div by zero should raise ValueError",
    ...extra,
  };
  const file = join(root, `instances-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${JSON.stringify(instance)}\n`);
  return file;
}

describe("importSweBench", () => {
  it("writes a task pack from the base commit, with hidden tests at their post-patch state", async () => {
    const out = join(root, "packs");
    expect((await importSweBench(instances(), { reposDir: repos, outDir: out })).imported).toEqual([
      "acme__calc-1",
    ]);
    const pack = loadTaskPack(join(out, "acme__calc-1"));
    expect(pack.spec.failToPass).toEqual(["tests/test_calc.py::test_div_zero"]);
    expect(pack.spec.test.runner).toBe("pytest");
    expect(pack.command).toContain("{tests}");
    expect(pack.hiddenTests).toEqual(["tests/test_calc.py", "tests/test_more.py"]);
    expect(readFileSync(join(pack.testsDir, "tests/test_calc.py"), "utf8")).toContain("def test_div_zero");
    expect(readFileSync(join(pack.repoDir, "tests/test_calc.py"), "utf8")).not.toContain("test_div_zero");
    expect(readFileSync(join(pack.repoDir, "calc.py"), "utf8")).toBe("def div(a, b):\n    return a / b\n");
    expect(readFileSync(join(pack.repoDir, "_version.py"), "utf8")).toContain("$Format:%H$");
    expect(existsSync(join(pack.repoDir, ".git"))).toBe(false);
    expect(pack.referencePatch).toContain('raise ValueError("zero")');
  });

  it("verifies: the reference patch passes and the empty patch fails", async () => {
    const out = join(root, "packs-verify");
    await importSweBench(instances({ instance_id: "acme__calc-2" }), { reposDir: repos, outDir: out });
    const pack = loadTaskPack(join(out, "acme__calc-2"));
    const sandbox = await selectBackend("bwrap");
    const verdicts = await verifyRollouts(
      [
        { id: "ref", taskId: pack.spec.id, patch: pack.referencePatch! },
        { id: "empty", taskId: pack.spec.id, patch: "" },
      ],
      { tasks: new Map([[pack.spec.id, pack]]), sandbox, jobs: 2 },
    );
    expect(verdicts.map((v) => [v.rolloutId, v.reason])).toEqual([
      ["ref", "passed"],
      ["empty", "tests-failed"],
    ]);
  });

  it("names the line and field of bad records before doing anything, and leaves nothing behind", async () => {
    const out = join(root, "packs-bad");
    const bad = async (extra: Record<string, unknown>) => {
      try {
        await importSweBench(instances({ instance_id: "bad-1", ...extra }), { reposDir: repos, outDir: out });
      } catch (e) {
        return e as InputError;
      }
      throw new Error("expected an error");
    };
    expect((await bad({ FAIL_TO_PASS: "not json" })).location).toMatchObject({
      line: 1,
      field: "FAIL_TO_PASS",
    });
    expect((await bad({ base_commit: "0123456789abcdef" })).location.field).toBe("base_commit");
    expect((await bad({ repo: "../etc" })).location.field).toBe("repo");
    expect((await bad({ repo: "acme/none" })).location.field).toBe("repo");
    expect((await bad({ patch: "\n" })).location.field).toBe("patch");
    const escaping =
      "diff --git a/../x b/../x\nnew file mode 100644\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n";
    expect((await bad({ test_patch: escaping })).location.field).toBe("test_patch");
    expect((await bad({ runner: "mocha", test_command: "mocha {tests}" })).message).toMatch(
      /:1 \(field test_command\): the mocha runner's command must contain \{reporter\}/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("carries on past an instance that cannot be imported, says why with its line and field, and leaves nothing of it", async () => {
    const out = join(root, "packs-partial");
    const good = JSON.parse(readFileSync(instances({ instance_id: "good-1" }), "utf8"));
    const file = join(root, "partial.jsonl");
    const lines = [
      { ...good, instance_id: "nope-1", FAIL_TO_PASS: ["tests/test_nope.py::t"] },
      {
        ...good,
        instance_id: "nope-2",
        test_patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
      },
      good,
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    const report = await importSweBench(file, { reposDir: repos, outDir: out });
    expect(report.imported).toEqual(["good-1"]);
    expect(report.failed.map((f) => [f.id, f.message.replace(file, "F")])).toEqual([
      [
        "nope-1",
        expect.stringMatching(/^F:1 \(field FAIL_TO_PASS\.0\): imported task is invalid: .*test_nope\.py/),
      ],
      ["nope-2", expect.stringMatching(/^F:2 \(field test_patch\): does not apply to base_commit/)],
    ]);
    expect(readdirSync(out)).toEqual(["good-1"]);
  });

  it("refuses to overwrite an existing task without force", async () => {
    const out = join(root, "packs-twice");
    const file = instances({ instance_id: "acme__calc-3" });
    await importSweBench(file, { reposDir: repos, outDir: out });
    await expect(importSweBench(file, { reposDir: repos, outDir: out })).rejects.toThrow(ConfigError);
    expect((await importSweBench(file, { reposDir: repos, outDir: out, force: true })).imported).toEqual([
      "acme__calc-3",
    ]);
  });

  it("derives FAIL_TO_PASS and PASS_TO_PASS by running when an instance has none", async () => {
    const out = join(root, "packs-derived");
    const file = instances({ instance_id: "acme__calc-4", FAIL_TO_PASS: undefined, PASS_TO_PASS: undefined });
    const session = join(root, "session");
    mkdirSync(session);
    const verifier = new Verifier({ sandbox: await selectBackend("bwrap"), workRoot: session });
    const runs = vi.spyOn(verifier, "verify");
    try {
      const report = await importSweBench(file, {
        reposDir: repos,
        outDir: out,
        verifier: async () => verifier,
        check: true,
      });
      // Derived and checked from the same two runs: the base with the hidden tests, and the reference.
      expect(runs.mock.calls.map(([, patch]) => (patch ? "reference" : "empty"))).toEqual([
        "empty",
        "reference",
      ]);
      expect(report).toMatchObject({ imported: ["acme__calc-4"], invalid: [], failed: [] });
      expect(JSON.parse(readFileSync(join(out, "acme__calc-4", "check.json"), "utf8")).valid).toBe(true);
      // The session let go of the task once it had run it: no copy of its repository, no view mounted.
      expect(readdirSync(join(session, "tasks"))).toEqual(["self-test"]);
      expect(mountsBelow(session)).toEqual([]);
    } finally {
      await verifier.close();
    }
    const pack = loadTaskPack(join(out, "acme__calc-4"));
    expect(pack.spec.failToPass).toEqual(["tests/test_calc.py::test_div_zero"]);
    expect(pack.spec.passToPass).toEqual(["tests/test_calc.py::test_div", "tests/test_more.py::test_half"]);
    await expect(
      importSweBench(instances({ instance_id: "acme__calc-5", FAIL_TO_PASS: undefined }), {
        reposDir: repos,
        outDir: out,
      }),
    ).rejects.toThrow(/FAIL_TO_PASS.*missing: pass a sandbox/);
  });

  it("reads SWE-PolyBench ids and Multi-SWE-bench records, and checks given lists by running", async () => {
    const out = join(root, "packs-forms");
    const poly = instances({
      instance_id: "acme__calc-6",
      FAIL_TO_PASS: ["tests/test_calc.py:test_div_zero"],
      PASS_TO_PASS: ["tests/test_calc.py:test_div", "tests/test_more.py:test_gone"],
    });
    const multi = join(root, "multi.jsonl");
    const one = JSON.parse(readFileSync(instances(), "utf8"));
    writeFileSync(
      multi,
      `${JSON.stringify({
        org: "acme",
        repo: "calc",
        number: 7,
        base: { sha: one.base_commit },
        fix_patch: one.patch,
        test_patch: one.test_patch,
        f2p_tests: { "tests/test_calc.py::test_div_zero": { run: "FAIL", test: "PASS" } },
        p2p_tests: { "tests/test_calc.py::test_div": { run: "PASS", test: "PASS" } },
        title: "div by zero",
      })}\n`,
    );
    const verifier = new Verifier({ sandbox: await selectBackend("bwrap") });
    try {
      await importSweBench(poly, {
        reposDir: repos,
        outDir: out,
        verifier: async () => verifier,
        check: true,
      });
      await importSweBench(multi, {
        reposDir: repos,
        outDir: out,
        verifier: async () => verifier,
        check: true,
      });
    } finally {
      await verifier.close();
    }
    const polyPack = loadTaskPack(join(out, "acme__calc-6"));
    expect(polyPack.spec.failToPass).toEqual(["tests/test_calc.py::test_div_zero"]);
    // tests/test_more.py::test_gone does not exist. SWE-PolyBench's harness counts a passToPass test
    // no report mentions as not failed, and a task taken from it follows that rule: the check says so.
    expect(polyPack.spec.missingPassToPass).toBe("ignore");
    expect(polyPack.invalid).toBeUndefined();
    expect(JSON.parse(readFileSync(join(polyPack.dir, "check.json"), "utf8")).notes).toEqual([
      'test id tests/test_more.py::test_gone never appears in a report (with or without the fix); missingPassToPass is "ignore", so it does not count',
    ]);
    const multiPack = loadTaskPack(join(out, "acme__calc-7"));
    expect(multiPack.spec.passToPass).toEqual(["tests/test_calc.py::test_div"]);
    expect(multiPack.spec.missingPassToPass).toBe("fail");
    expect(multiPack.invalid).toBeUndefined();
  });

  it("reads Multi-SWE-bench's new and skipped target tests as FAIL_TO_PASS, and its issues as the statement", async () => {
    const out = join(root, "packs-msb");
    const one = JSON.parse(readFileSync(instances(), "utf8"));
    const file = join(root, "msb-new-tests.jsonl");
    const record = {
      org: "acme",
      repo: "calc",
      number: 8,
      base: { sha: one.base_commit },
      fix_patch: one.patch,
      test_patch: one.test_patch,
      f2p_tests: {},
      s2p_tests: { "tests/test_more.py::test_half": { run: "SKIP", test: "SKIP", fix: "PASS" } },
      n2p_tests: { "tests/test_calc.py::test_div_zero": { run: "NONE", test: "FAIL", fix: "PASS" } },
      p2p_tests: { "tests/test_calc.py::test_div": { run: "PASS", test: "PASS", fix: "PASS" } },
      resolved_issues: [{ number: 3, title: "div by zero", body: "should raise ValueError" }],
      title: "Fix div",
      body: "",
    };
    const withoutIssues = { ...record, number: 9, resolved_issues: [], body: "" };
    writeFileSync(file, `${JSON.stringify(record)}\n${JSON.stringify(withoutIssues)}\n`);
    await importSweBench(file, { reposDir: repos, outDir: out });
    const pack = loadTaskPack(join(out, "acme__calc-8"));
    expect(pack.spec.failToPass).toEqual([
      "tests/test_more.py::test_half",
      "tests/test_calc.py::test_div_zero",
    ]);
    expect(pack.spec.passToPass).toEqual(["tests/test_calc.py::test_div"]);
    expect(pack.spec.statement).toBe("div by zero\n\nshould raise ValueError");
    // No issue and an empty pull request body: the title alone.
    expect(loadTaskPack(join(out, "acme__calc-9")).spec.statement).toBe("Fix div");
  });
});
