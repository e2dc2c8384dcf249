import { describe, expect, it } from "vitest";
import { gatePatch } from "./patch-gate.ts";
import { PathPolicy } from "./protected-paths.ts";

const policy = new PathPolicy({
  hiddenTests: ["tests/test_calc.py"],
  testIdFiles: ["tests/test_calc.py", "tests/test_other.py"],
  protectedGlobs: ["data/golden/"],
});

/** A modification in the gate's canonical form (what it hands git apply). */
function modify(path: string, body = "-a\n+b\n"): string {
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,1 @@\n${body}`;
}

function add(path: string, mode = "100644"): string {
  return `diff --git a/${path} b/${path}\nnew file mode ${mode}\nindex 0000000..2222222\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
}

const FIX = modify("calc.py");

describe("gatePatch", () => {
  it("passes an ordinary patch through unchanged", () => {
    const result = gatePatch(FIX, { policy });
    expect(result).toMatchObject({ ok: true, patch: FIX, findings: [], stripped: [] });
  });

  it("drops free text before the first header", () => {
    const result = gatePatch(`Fix division\n\n${FIX}`, { policy });
    expect(result.ok && result.patch).toBe(FIX);
  });

  it("accepts an empty patch as a no-op", () => {
    expect(gatePatch("", { policy })).toMatchObject({ ok: true, patch: "", files: [] });
  });

  it.each([
    ["../outside.py", "'..' path component"],
    ["a/../../b.py", "'..' path component"],
    [".git/hooks/post-checkout", ".git metadata"],
    ["sub/.GIT/config", ".git metadata"],
    ["pkg/__pycache__/m.cpython-311.pyc", "__pycache__"],
    ["pkg/m.pyc", "bytecode"],
    ["pkg/_speedups.so", "native library"],
    ["lib/libx.so.1", "native library"],
    ["evil.pth", ".pth"],
    ["sitecustomize.py", "start-up hook"],
    ["pkg/usercustomize.py", "start-up hook"],
  ])("rejects %s", (path, why) => {
    const result = gatePatch(add(path), { policy });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toContain(why);
      expect(result.findings[0]).toMatchObject({ kind: "patch-policy", severity: "critical" });
    }
  });

  it("rejects an absolute path even when git would prefix it", () => {
    const patch =
      "diff --git a//etc/passwd b//etc/passwd\n--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-a\n+b\n";
    expect(gatePatch(patch, { policy }).ok).toBe(false);
  });

  it("rejects symlinks, gitlinks and binary hunks", () => {
    expect(gatePatch(add("evil", "120000"), { policy })).toMatchObject({ ok: false, reason: "symlink evil" });
    expect(gatePatch(add("vendor/lib", "160000"), { policy })).toMatchObject({ ok: false });
    const binary =
      "diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 3\nKcmZ?wbN~PV\n\nliteral 0\nKcmV+b0RR6000031\n";
    expect(gatePatch(binary, { policy })).toMatchObject({ ok: false, reason: "binary patch for img.png" });
    const mode = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 104755\n";
    expect(gatePatch(mode, { policy })).toMatchObject({ ok: false, reason: "file mode 104755 for run.sh" });
  });

  it("rejects a symlink mode change on an existing file", () => {
    const patch = "diff --git a/calc.py b/calc.py\nold mode 100644\nnew mode 120000\n";
    expect(gatePatch(patch, { policy }).ok).toBe(false);
  });

  it("strips protected files by default and records a finding for each", () => {
    const patch = [
      FIX,
      modify("tests/test_calc.py"),
      add("conftest.py"),
      add("tests/sub/conftest.py"),
      modify("pytest.ini"),
      modify("package.json"),
      add(".github/workflows/ci.yml"),
      add("data/golden/out.txt"),
      modify("tests/test_other.py"),
    ].join("");
    const result = gatePatch(patch, { policy });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.patch).toBe(FIX);
    expect(result.stripped).toEqual([
      "tests/test_calc.py",
      "conftest.py",
      "tests/sub/conftest.py",
      "pytest.ini",
      "package.json",
      ".github/workflows/ci.yml",
      "data/golden/out.txt",
      "tests/test_other.py",
    ]);
    const kinds = result.findings.map((f) => `${f.kind}/${f.severity}`);
    expect(kinds).toEqual([
      "test-tampering/critical",
      "test-tampering/critical",
      "test-tampering/critical",
      "config-tampering/major",
      "config-tampering/major",
      "config-tampering/major",
      "config-tampering/major",
      "test-tampering/critical",
    ]);
    expect(result.findings[0]).toMatchObject({ file: "tests/test_calc.py", line: 1 });
  });

  it("strips changes to installed packages, node_modules and a virtualenv's site-packages alike", () => {
    for (const path of [
      "node_modules/left-pad/index.js",
      "test/node_modules/stats/index.js",
      ".venv/lib/python3.11/site-packages/requests/api.py",
      "env/lib/python3/dist-packages/six.py",
    ]) {
      const result = gatePatch(FIX + modify(path), { policy });
      expect(result.ok && result.stripped, path).toEqual([path]);
      expect(result.ok && result.findings[0]?.message, path).toMatch(/installed packages/);
    }
  });

  it("protects a path that would block laying a hidden test over the workspace", () => {
    const result = gatePatch(add("tests"), { policy });
    expect(result.ok && result.stripped).toEqual(["tests"]);
    const below = gatePatch(add("tests/test_calc.py/x.py"), { policy });
    expect(below.ok && below.stripped).toEqual(["tests/test_calc.py/x.py"]);
  });

  it("sees renames away from a protected file", () => {
    const patch =
      "diff --git a/tests/test_calc.py b/tests/old.py\nsimilarity index 100%\nrename from tests/test_calc.py\nrename to tests/old.py\n";
    const result = gatePatch(patch, { policy });
    expect(result.ok && result.stripped).toEqual(["tests/test_calc.py"]);
  });

  it("rejects instead of stripping under the reject policy", () => {
    const result = gatePatch(FIX + add("conftest.py"), { policy, protectedPolicy: "reject" });
    expect(result).toMatchObject({ ok: false, reason: "patch changes protected paths: conftest.py" });
    expect(result.findings).toHaveLength(1);
  });

  it("enforces the size, file and hunk caps", () => {
    expect(gatePatch(FIX, { policy, limits: { maxBytes: 10 } })).toMatchObject({ ok: false });
    expect(gatePatch(FIX + modify("b.py"), { policy, limits: { maxFiles: 1 } })).toMatchObject({
      ok: false,
      reason: "patch touches 2 files; the limit is 1",
    });
    expect(gatePatch(FIX, { policy, limits: { maxHunks: 0 } })).toMatchObject({ ok: false });
  });

  it("rejects new modules that shadow the toolchain, but not existing ones", () => {
    const shadowModules = new Set(["pytest", "json", "_pytest"]);
    const pristineHas = (p: string) => p === "json";
    const opts = { policy, shadowModules, pristineHas };
    expect(gatePatch(add("pytest/__init__.py"), opts)).toMatchObject({ ok: false });
    expect(gatePatch(add("pytest.py"), opts)).toMatchObject({ ok: false });
    expect(gatePatch(add("tests/_pytest.py"), opts)).toMatchObject({ ok: false });
    expect(gatePatch(add("json/extra.py"), opts).ok).toBe(true);
    expect(gatePatch(add("src/pytest.py"), opts).ok).toBe(true);
    expect(gatePatch(add("pytest.txt"), opts).ok).toBe(true);
  });

  it("rejects new modules the tests would import instead of the repository's or of a module they import", () => {
    const testImports = { repository: { calc: "", pkg: "src" }, others: ["requests"] };
    const pristineHas = (p: string) => ["calc.py", "src/pkg", "tests/helpers.py"].includes(p);
    const opts = { policy, testImports, pristineHas };
    for (const path of ["tests/calc.py", "tests/calc/__init__.py", "pkg/__init__.py", "tests/requests.py"]) {
      const result = gatePatch(add(path), opts);
      expect(result, path).toMatchObject({ ok: false });
      expect(result.findings[0]?.kind, path).toBe("module-shadowing");
    }
    for (const path of ["calc_utils.py", "src/pkg/extra.py", "tests/other.py", "src/calc.py", "docs/calc.md"])
      expect(gatePatch(add(path), opts).ok, path).toBe(true);
  });

  it("rejects a new module that would be loaded instead of an existing one of the same import name", () => {
    const pristine = new Set([
      "pkg",
      "pkg/parser.py",
      "lib",
      "lib/index.js",
      "lib/util",
      "lib/util/index.js",
    ]);
    const opts = { policy, pristineHas: (p: string) => pristine.has(p) };
    for (const path of ["pkg/parser/__init__.py", "pkg/parser/core.py", "lib/index", "lib/util.js"]) {
      const result = gatePatch(add(path), opts);
      expect(result, path).toMatchObject({ ok: false });
      expect(result.findings[0]?.kind, path).toBe("module-shadowing");
    }
    for (const path of [
      "pkg/lexer/__init__.py",
      "pkg/parser_v2.py",
      "lib/other.js",
      "lib/util/extra.js",
      "README",
    ])
      expect(gatePatch(add(path), opts).ok, path).toBe(true);
    const toPackage = `diff --git a/pkg/parser.py b/pkg/parser.py\ndeleted file mode 100644\n--- a/pkg/parser.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n${add("pkg/parser/__init__.py")}`;
    expect(gatePatch(toPackage, opts).ok).toBe(true);
  });

  it("refuses packaging metadata that would load code into the test runner", () => {
    for (const path of [
      "calc.dist-info/entry_points.txt",
      "x.egg-info/PKG-INFO",
      "__editable___calc_finder.py",
      "entry_points.txt",
    ])
      expect(gatePatch(add(path), { policy }), path).toMatchObject({ ok: false });
  });

  it("hands git apply a canonical rendering, without index lines or free text", () => {
    const withIndex = `intro\ndiff --git a/calc.py b/calc.py\nindex 1111111..2222222 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a\n+b\ntrailing words\n`;
    expect(gatePatch(withIndex, { policy })).toMatchObject({ ok: true, patch: FIX });
  });

  it("refuses hunks without a file header and unparseable patches", () => {
    expect(gatePatch("@@ -1 +1 @@\n-a\n+b\n", { policy })).toMatchObject({ ok: false });
    const truncated = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n";
    const result = gatePatch(truncated, { policy });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^unparseable patch: patch line \d+/);
  });

  it("tolerates blank lines after the last hunk", () => {
    const result = gatePatch(`${FIX}\n\n`, { policy });
    expect(result.ok && result.patch).toBe(FIX);
  });
});
