/**
 * The patch gate against real `git apply`, over generated patch forms (test/support/patch-forms.ts),
 * both ways. For every case, at a real base tree, with the arguments and environment the runner uses:
 * - whatever the gate accepts, git accepts: `git apply` of the gate's rendering (what the runner does)
 *   succeeds exactly when `git apply` of the original does, never where `git apply --check` of the
 *   original fails, and then leaves the very same tree (contents and modes);
 * - whatever git accepts, the gate accepts, unless the refusal is one of its documented ones
 *   (GATE_REFUSALS, read from the gate's own list) and the patch really has what that refusal names;
 * - a refusal the gate attributes to git (`git-refuses`) is one git makes too;
 * - what git applied is what the gate said: the paths git reports are the gate's files, in order, no
 *   other path changed, created files hold the added lines, deleted ones are gone, and a hunk whose
 *   old lines occur exactly once gives the content git wrote.
 * GAGAR_GATE_GIT_RUNS sets the number of cases (default 300); GAGAR_GATE_GIT_SEED and GAGAR_GATE_GIT_PATH
 * replay a reported case, GAGAR_GATE_GIT_SHRINK=1 shrinks a failure.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type BaseFile, type PatchCase, patchCase } from "../../../test/support/patch-forms.ts";
import { type FileDiff, filePath, type Hunk, parseDiff } from "../../diff/parse.ts";
import { APPLY_ARGS } from "../run/candidate-run.ts";
import { GATE_REFUSALS, type GateRefusalRule } from "./gate-refusals.ts";
import { type GateResult, gatePatch } from "./patch-gate.ts";
import { forbiddenReason, PathPolicy } from "./protected-paths.ts";

const RUNS = Number(process.env.GAGAR_GATE_GIT_RUNS ?? 300);
const SEED = process.env.GAGAR_GATE_GIT_SEED ? Number(process.env.GAGAR_GATE_GIT_SEED) : undefined;

const scratch = mkdtempSync(join(tmpdir(), "gagar-gate-git-"));
let counter = 0;
const policy = new PathPolicy({ hiddenTests: [], testIdFiles: [], protectedGlobs: [] });
const stats = {
  cases: 0,
  gitAccepts: 0,
  gateAccepts: 0,
  refusals: {} as Record<string, number>,
  forms: {} as Record<string, number>,
};

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (!stats.cases) return;
  const forms = Object.entries(stats.forms)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([f, n]) => `${f} ${n}`)
    .join(", ");
  process.stdout.write(
    `gate vs git: ${stats.cases} cases; git accepted ${stats.gitAccepts}, the gate ${stats.gateAccepts}; refusals ${JSON.stringify(stats.refusals)}\nforms: ${forms}\n`,
  );
});

// What the runner sets (sandbox-runner.py apply_patch), with the ceiling at the scratch directory.
const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CEILING_DIRECTORIES: scratch,
  LC_ALL: "C",
};

function writeTree(base: Record<string, BaseFile>): string {
  const dir = join(scratch, `t${++counter}`);
  mkdirSync(dir);
  for (const [path, file] of Object.entries(base)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), file.content);
    chmodSync(join(dir, path), file.exec ? 0o755 : 0o644);
  }
  return dir;
}

function git(dir: string, patch: string, ...args: string[]): { ok: boolean; out: string } {
  const file = join(scratch, `p${++counter}.diff`);
  writeFileSync(file, patch);
  const run = spawnSync("git", [...APPLY_ARGS, ...args, file], { cwd: dir, env: GIT_ENV, encoding: "utf8" });
  rmSync(file);
  return { ok: run.status === 0, out: `${run.stdout}${run.stderr}` };
}

interface Entry {
  content: string;
  exec: boolean;
  symlink: boolean;
}

function contents(dir: string): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path, `${prefix}${name}/`);
      else
        out[prefix + name] = {
          content: st.isSymbolicLink() ? readlinkSync(path) : readFileSync(path).toString("base64"),
          exec: (st.mode & 0o100) !== 0,
          symlink: st.isSymbolicLink(),
        };
    }
  };
  walk(dir, "");
  return out;
}

/** The paths `git apply --numstat -z` reports, one per file diff (the new name of a rename). */
function gitPaths(patch: string): { paths: string[]; binary: string[] } {
  const file = join(scratch, `p${++counter}.diff`);
  writeFileSync(file, patch);
  // Reading needs no tree: numstat parses the patch and checks nothing against files.
  const run = spawnSync("git", ["apply", "--numstat", "-z", file], { cwd: scratch, env: GIT_ENV });
  rmSync(file);
  const tokens = run.stdout.toString("utf8").split("\0");
  const paths: string[] = [];
  const binary: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token) continue;
    const [added, deleted] = token.split("\t", 2);
    let name = token.slice(`${added}\t${deleted}\t`.length);
    if (name === "") {
      name = tokens[i + 2]!;
      i += 2;
    }
    paths.push(name);
    if (added === "-") binary.push(name);
  }
  return { paths, binary };
}

function show(c: PatchCase, extra: string): string {
  return `${extra}\n--- base: ${JSON.stringify(Object.keys(c.base))}\n--- patch:\n${JSON.stringify(c.patch)}\n--- forms: ${c.forms.join(" ")}`;
}

/** A documented refusal must point at something the patch, as git reads it, really has. */
function justify(c: PatchCase, gate: Extract<GateResult, { ok: false }>): void {
  const read = gitPaths(c.patch);
  const why = show(c, `gate: ${gate.reason}`);
  switch (gate.rule) {
    case "forbidden-path": {
      // The gate read the files git reads, and one of their names is forbidden.
      // (git stops reading at a binary payload it cannot read; the gate keeps that section, to refuse it.)
      const files = parseDiff(c.patch);
      expect(files.map(filePath).slice(0, read.paths.length), why).toEqual(read.paths);
      expect(
        files.slice(read.paths.length).every((f) => f.binary),
        why,
      ).toBe(true);
      const names = files.flatMap((f) => [f.oldPath, f.newPath]).filter((p) => p !== null);
      expect(
        names.some((p) => forbiddenReason(p) !== null),
        why,
      ).toBe(true);
      break;
    }
    case "binary":
      expect(read.binary.length > 0 || c.patch.includes("GIT binary patch"), why).toBe(true);
      break;
    case "symlink":
    case "gitlink":
    case "file-mode": {
      const mode = /mode (\d+)|symlink|gitlink/.exec(gate.reason);
      expect(mode, why).not.toBeNull();
      break;
    }
    default:
      expect(Object.keys(GATE_REFUSALS), why).toContain(gate.rule);
  }
}

/** Lines of a text, each with its newline (the last one may lack it). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function lineText(line: { text: string; noNewline?: boolean }): string {
  return line.text + (line.noNewline ? "" : "\n");
}

/**
 * The content hunks give, where that is certain: each hunk's old lines occur exactly once in the image
 * (git then applies it there and nowhere else); null when it is not.
 */
function certainResult(old: string, hunks: Hunk[]): string | null {
  const image = splitLines(old);
  for (const hunk of hunks) {
    if (hunk.lines.some((l) => l.bare && l.noNewline)) return null;
    const pre = hunk.lines.filter((l) => l.kind !== "add").map(lineText);
    const post = hunk.lines.filter((l) => l.kind !== "del").map(lineText);
    if (!pre.length) return null;
    const at: number[] = [];
    for (let i = 0; i + pre.length <= image.length; i++)
      if (pre.every((l, k) => image[i + k] === l)) at.push(i);
    if (at.length !== 1) return null;
    image.splice(at[0]!, pre.length, ...post);
  }
  return image.join("");
}

function decode(entry: Entry | undefined): string | undefined {
  return entry && Buffer.from(entry.content, "base64").toString("utf8");
}

/** What the gate said the patch does, checked against the tree git left. */
function checkClaims(
  c: PatchCase,
  files: FileDiff[],
  before: Record<string, Entry>,
  after: Record<string, Entry>,
) {
  const named = new Map<string, number>();
  for (const f of files)
    for (const p of new Set([f.oldPath, f.newPath])) if (p !== null) named.set(p, (named.get(p) ?? 0) + 1);
  const why = (what: string) => show(c, what);
  for (const path of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const changed = JSON.stringify(before[path]) !== JSON.stringify(after[path]);
    if (changed)
      expect(named.has(path), why(`git changed ${path}, which the gate's files do not name`)).toBe(true);
  }
  const once = (p: string | null) => p !== null && named.get(p) === 1;
  for (const f of files) {
    if (f.status === "deleted" && once(f.oldPath))
      expect(after[f.oldPath!], why(`the gate said ${f.oldPath} is deleted`)).toBeUndefined();
    if (f.status === "renamed" && f.oldPath !== f.newPath && once(f.oldPath))
      expect(after[f.oldPath!], why(`the gate said ${f.oldPath} is renamed away`)).toBeUndefined();
    if (f.newPath === null || !once(f.newPath)) continue;
    const now = after[f.newPath];
    expect(now, why(`the gate said ${f.newPath} exists afterwards`)).toBeDefined();
    if (f.newMode === "100755" || f.newMode === "100644")
      expect(now!.exec, why(`the gate said ${f.newPath} has mode ${f.newMode}`)).toBe(f.newMode === "100755");
    let expected: string | null = null;
    if (f.status === "added") expected = f.hunks.flatMap((h) => h.lines.map(lineText)).join("");
    else if (
      f.oldPath !== null &&
      (f.status !== "renamed" || once(f.oldPath)) &&
      (f.status !== "modified" || f.oldPath === f.newPath)
    )
      expected = certainResult(decode(before[f.oldPath]) ?? "", f.hunks);
    if (expected !== null) expect(decode(now), why(`the gate's content of ${f.newPath}`)).toBe(expected);
  }
}

function differential(c: PatchCase): void {
  const dirs: string[] = [];
  try {
    compare(c, (base) => {
      const dir = writeTree(base);
      dirs.push(dir);
      return dir;
    });
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

function compare(c: PatchCase, tree: (base: Record<string, BaseFile>) => string): void {
  stats.cases++;
  for (const form of new Set(c.forms)) stats.forms[form] = (stats.forms[form] ?? 0) + 1;
  const byGit = tree(c.base);
  const check = git(byGit, c.patch, "--check");
  if (check.ok) stats.gitAccepts++;
  const present = new Set(
    Object.keys(c.base).flatMap((p) => p.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"))),
  );
  const gate = gatePatch(c.patch, { policy, pristineHas: (p) => present.has(p) });
  if (/^[\t\n\v\f\r ]*$/.test(c.patch)) {
    // The documented no-op (git's --allow-empty): nothing to compare.
    expect(gate).toMatchObject({ ok: true, patch: "" });
    return;
  }
  if (!gate.ok) {
    stats.refusals[gate.rule] = (stats.refusals[gate.rule] ?? 0) + 1;
    if (gate.rule === "git-refuses") {
      expect(
        check.ok,
        show(c, `the gate says git refuses (${gate.reason}); git --check:\n${check.out}`),
      ).toBe(false);
    } else if (check.ok) {
      justify(c, gate);
    }
    return;
  }
  stats.gateAccepts++;
  const before = contents(byGit);
  // What the runner does (git apply of the rendering) against git apply of the original: the same
  // outcome, also where writing fails after a passing check (a file where a directory is).
  const byGate = tree(c.base);
  const applied = gate.patch === "" ? { ok: true, out: "" } : git(byGate, gate.patch);
  const original = git(byGit, c.patch);
  expect(
    applied.ok,
    show(
      c,
      `git --check of the original: ${check.ok ? "ok" : check.out}\ngit apply of the original: ${original.ok ? "ok" : original.out}\ngit apply of the gate's rendering: ${applied.ok ? "ok" : applied.out}\n--- rendering:\n${gate.patch}`,
    ),
  ).toBe(original.ok);
  if (!check.ok) expect(original.ok, show(c, "git apply passed where its --check failed")).toBe(false);
  if (!original.ok) return;
  const after = contents(byGit);
  expect(contents(byGate), show(c, `the trees differ\n--- rendering:\n${gate.patch}`)).toEqual(after);
  expect(gate.files.map(filePath), show(c, "the gate's files are not the paths git reports")).toEqual(
    gitPaths(c.patch).paths,
  );
  checkClaims(c, gate.files, before, after);
}

const H = "@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n";
const EXAMPLE_BASE: Record<string, BaseFile> = {
  "a.txt": { content: "a\nb\nc\n", exec: false },
  "dir/x.txt": { content: "x\n", exec: false },
};

/** One example of each way the earlier reader and git disagreed, and what the gate does now. */
const DIVERGENCES: [string, string, "ok" | GateRefusalRule][] = [
  [
    "a +++ line naming /tmp/… under a new-file header (git: inconsistent new filename)",
    "diff --git a/tmp/x b/tmp/x\nnew file mode 100644\n--- /dev/null\n+++ /tmp/evil\n@@ -0,0 +1 @@\n+x\n",
    "git-refuses",
  ],
  [
    "---/+++ names other than the diff --git line's (git reads them)",
    `diff --git a/x b/x\n--- a/a.txt\n+++ b/a.txt\n${H}`,
    "ok",
  ],
  [
    "a plain diff that creates its file without /dev/null",
    "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n",
    "ok",
  ],
  [
    "double slashes, which git squashes",
    "diff --git a/dir//x.txt b/dir//x.txt\n--- a/dir//x.txt\n+++ b/dir//x.txt\n@@ -1 +1 @@\n-x\n+y\n",
    "ok",
  ],
  [
    "an empty diff --git header, which git skips but whose names it keeps",
    "diff --git a/a.txt b/a.txt\nmeaning nothing\ndiff --git a/dir/x.txt b/dir/x.txt\n--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -1 +1 @@\n-x\n+y\n",
    "git-refuses",
  ],
  [
    "a hunk with context only (git: corrupt patch)",
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n b\n",
    "git-refuses",
  ],
  [
    "a last hunk line without its newline (git: corrupt patch)",
    `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n${H.slice(0, -1)}`,
    "git-refuses",
  ],
  [
    "a plain diff of a top-level file, after which git reads every name with -p0",
    `--- a.txt.orig\n+++ a.txt\n${H}diff --git dir/x.txt dir/x.txt\n--- dir/x.txt\n+++ dir/x.txt\n@@ -1 +1 @@\n-x\n+y\n`,
    "ok",
  ],
  [
    "a creation that also names an old file (git aborts)",
    "diff --git a/n.txt b/n.txt\n--- a/n.txt\nnew file mode 100644\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\n",
    "git-refuses",
  ],
  [
    "a +++ /dev/null without a deletion header (git writes dev/null)",
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n",
    "ok",
  ],
  [
    "a binary payload git cannot read (git stops there and applies the rest)",
    `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n${H}diff --git a/g b/g\nnew file mode 100644\nGIT binary patch\nnothing\n`,
    "binary",
  ],
  [
    "a deletion whose header also names a new file (git accepts; its own diffs never say that)",
    "diff --git a/a.txt b/a.txt\n+++ b/a.txt\ndeleted file mode 100644\n--- a/a.txt\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n",
    "odd-header",
  ],
  [
    "text without any file diff (git: No valid patches in input)",
    "Fix the bug.\n\nSigned-off-by: someone\n",
    "git-refuses",
  ],
];

describe("the patch gate and git apply accept the same patches", () => {
  it.each(DIVERGENCES)("%s", (_name, patch, expected) => {
    const gate = gatePatch(patch, { policy, pristineHas: (p) => ["a.txt", "dir", "dir/x.txt"].includes(p) });
    expect(gate.ok ? "ok" : gate.rule).toBe(expected);
    differential({ base: EXAMPLE_BASE, patch, forms: [] });
  });

  it(
    "over generated patch forms, both ways",
    () => {
      fc.assert(fc.property(patchCase, differential), {
        numRuns: RUNS,
        // Each case runs git a few times: report the case as found unless shrinking is asked for.
        endOnFailure: !process.env.GAGAR_GATE_GIT_SHRINK,
        ...(SEED !== undefined && { seed: SEED }),
        ...(process.env.GAGAR_GATE_GIT_PATH && { path: process.env.GAGAR_GATE_GIT_PATH }),
      });
    },
    Math.max(120_000, RUNS * 400),
  );

  it("documents every refusal in docs/security.md", () => {
    const doc = readFileSync(new URL("../../../docs/security.md", import.meta.url), "utf8");
    for (const rule of Object.keys(GATE_REFUSALS)) expect(doc.includes(`\`${rule}\``), rule).toBe(true);
  });
});
