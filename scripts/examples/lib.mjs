// Shared helpers for the example pack: workspace copies, patches, running hidden tests the way the
// verifier does, and reading JUnit XML into test ids. Plain Node ESM, no dependencies, so that
// `node scripts/examples/check-pack.mjs` works without a build step.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const TASKS_DIR = join(ROOT, "examples", "tasks");
export const ROLLOUTS_DIR = join(ROOT, "examples", "rollouts");
export const SPECS_DIR = join(ROOT, "scripts", "examples", "tasks");

/** The environment every test run and every transcript command gets (the sandbox's PATH). */
export const SANDBOX_ENV = Object.freeze({
  PATH: "/usr/bin:/bin",
  HOME: "/tmp",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  PYTHONDONTWRITEBYTECODE: "1",
  NO_COLOR: "1",
});

export function taskIds() {
  if (!existsSync(TASKS_DIR)) return [];
  return readdirSync(TASKS_DIR)
    .filter((d) => existsSync(join(TASKS_DIR, d, "task.json")))
    .sort();
}

export function loadTask(id) {
  const dir = join(TASKS_DIR, id);
  const spec = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  const refPath = join(dir, "reference.patch");
  return {
    id,
    dir,
    spec,
    repoDir: join(dir, "repo"),
    testsDir: join(dir, "tests"),
    reference: existsSync(refPath) ? readFileSync(refPath, "utf8") : null,
  };
}

export function loadRollouts(id) {
  const file = join(ROLLOUTS_DIR, `${id}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/** Relative paths (with "/") of every regular file under dir, sorted. */
export function listFiles(dir, base = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...listFiles(p, base));
    else if (st.isFile()) out.push(relative(base, p).split(sep).join("/"));
  }
  return out;
}

export function tempDir(prefix = "gagar-ex-") {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A plain copy of the task's repository (no .git), like the verifier's workspace. */
export function copyRepo(task, dest = join(tempDir(), "workspace")) {
  cpSync(task.repoDir, dest, { recursive: true });
  return dest;
}

export function run(argv, opts = {}) {
  const res = spawnSync(argv[0], argv.slice(1), {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...opts,
  });
  if (res.error) throw res.error;
  return res;
}

/** Like run() but asynchronous (so several test runs can go in parallel), with a wall timeout. */
export function runAsync(argv, { cwd, env, timeoutMs }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolvePromise({ status, signal, stdout, stderr, timedOut });
    });
  });
}

/** `git apply` (never fuzzy) of a patch text in dir; returns {ok, message}. `check` only tests it. */
export function applyPatch(dir, patch, { check = false } = {}) {
  if (patch.trim() === "") return { ok: true, message: "empty patch" };
  const file = join(tempDir("gagar-patch-"), "candidate.patch");
  writeFileSync(file, patch);
  // GIT_CEILING_DIRECTORIES keeps git from discovering a repository above the temp dir.
  const argv = ["git", "apply", "--whitespace=nowarn", ...(check ? ["--check"] : []), file];
  const res = run(argv, { cwd: dir, env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) } });
  rmSync(dirname(file), { recursive: true, force: true });
  return { ok: res.status === 0, message: (res.stderr || res.stdout).trim() };
}

function removePycache(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (name === "__pycache__") rmSync(p, { recursive: true, force: true });
      else removePycache(p);
    } else if (name.endsWith(".pyc")) rmSync(p, { force: true });
  }
}

/**
 * Verify one patch like gagar's verifier: fresh copy of repo/, git apply, drop bytecode, lay the hidden
 * tests over the workspace, run task.test.command with {junit}/{tests} substituted and PATH=/usr/bin:/bin,
 * read the JUnit report. (No sandbox and no canaries: this checks the pack's content, not isolation.)
 */
export async function verifyPatch(task, patch) {
  const root = tempDir();
  const ws = join(root, "workspace");
  try {
    copyRepo(task, ws);
    const applied = applyPatch(ws, patch ?? "");
    if (!applied.ok) return { passed: false, reason: "apply-failed", message: applied.message, tests: {} };
    removePycache(ws);
    const hidden = listFiles(task.testsDir);
    for (const rel of hidden) cpSync(join(task.testsDir, rel), join(ws, rel));
    const junit = join(root, "report.xml");
    const argv = [];
    for (const a of task.spec.test.command) {
      if (a === "{tests}") argv.push(...hidden);
      else argv.push(a.replaceAll("{junit}", junit));
    }
    const res = await runAsync(argv, { cwd: ws, env: SANDBOX_ENV, timeoutMs: (task.spec.timeoutSec ?? 120) * 1000 });
    if (res.timedOut) return { passed: false, reason: "timeout", tests: {} };
    if (!existsSync(junit)) {
      return { passed: false, reason: "crashed", message: `${res.stdout}\n${res.stderr}`.slice(-2000), tests: {} };
    }
    const tests = junitToStatuses(readFileSync(junit, "utf8"), task.spec.language, hidden);
    const required = [...task.spec.failToPass, ...(task.spec.passToPass ?? [])];
    const bad = required.filter((id) => tests[id] !== "passed");
    return {
      passed: bad.length === 0,
      reason: bad.length === 0 ? "passed" : "tests-failed",
      failing: bad,
      tests,
      output: `${res.stdout}\n${res.stderr}`,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// JUnit XML → {testId: status}

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
function unescapeXml(s) {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (m, e) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e] ?? m;
  });
}

/** Tags of the document in order: {close, name, attrs, selfClosing}. Comments, PIs and text are skipped. */
function* xmlTags(xml) {
  const re = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    if (!m[2]) continue;
    const attrs = {};
    for (const a of m[3].matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs[a[1]] = unescapeXml(a[2] ?? a[3]);
    yield { close: m[1] === "/", name: m[2], attrs, selfClosing: m[4] === "/" };
  }
}

/**
 * Test ids: Python `tests/test_x.py::test_name` / `tests/test_x.py::TestClass::test_name` (from the
 * xunit1 `file` and `classname` attributes); JavaScript (node:test) `test/x.test.js::suite > sub > test`
 * — node's JUnit reporter does not name the file, so the pack keeps one hidden test file per JS task.
 */
export function junitToStatuses(xml, language, testFiles) {
  const out = {};
  const suites = [];
  let current = null;
  const finish = (tc) => {
    let id;
    if (language === "python") {
      const file = tc.attrs.file ?? `${(tc.attrs.classname ?? "").replaceAll(".", "/")}.py`;
      const mod = file.replace(/\.py$/, "").split("/").join(".");
      const cls = (tc.attrs.classname ?? "").startsWith(`${mod}.`) ? tc.attrs.classname.slice(mod.length + 1) : "";
      id = [file, ...(cls ? cls.split(".") : []), tc.attrs.name].join("::");
    } else {
      const file = testFiles.length === 1 ? testFiles[0] : "?";
      id = `${file}::${[...tc.suites, tc.attrs.name].join(" > ")}`;
    }
    const prev = out[id];
    // A duplicated id counts as failed unless every occurrence passed.
    out[id] = prev && prev !== "passed" ? prev : tc.status;
  };
  for (const t of xmlTags(xml)) {
    if (t.name === "testsuite") {
      if (t.close) suites.pop();
      else if (!t.selfClosing) suites.push(t.attrs.name ?? "");
    } else if (t.name === "testcase") {
      if (t.close) {
        if (current) finish(current);
        current = null;
      } else {
        // pytest wraps everything in one <testsuite name="pytest">; node nests real suites.
        const tc = { attrs: t.attrs, suites: language === "python" ? [] : suites.slice(), status: "passed" };
        if (t.attrs.failure !== undefined) tc.status = "failed";
        if (t.selfClosing) finish(tc);
        else current = tc;
      }
    } else if (current && !t.close) {
      if (t.name === "failure") current.status = "failed";
      else if (t.name === "error") current.status = "error";
      else if (t.name === "skipped") current.status = current.status === "passed" ? "skipped" : current.status;
    }
  }
  return out;
}

/** The pytest/node binaries the pack relies on, with a hint when one is missing. */
export function toolchainProblems() {
  const problems = [];
  const py = spawnSync("/usr/bin/python3", ["-m", "pytest", "--version"], { encoding: "utf8" });
  if (py.status !== 0) problems.push("/usr/bin/python3 -m pytest is not available (apt-get install -y python3-pytest)");
  if (!existsSync("/usr/bin/node")) problems.push("/usr/bin/node is missing (the sandbox PATH is /usr/bin:/bin)");
  return problems;
}
