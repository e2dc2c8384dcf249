import { readFileSync } from "node:fs";
import { posix } from "node:path";
import { nonce } from "../runners/canary.ts";
import { NODE_HARNESS } from "../runners/harness-surfaces.ts";
import type { PlanFile, TestPlan } from "../runners/types.ts";
import { SUPPORT_DIR } from "../runners/types.ts";
import { ignoresPythonPath, withPythonPath } from "./python-path.ts";
import { declaresTests } from "./test-modules.ts";

/**
 * The guards: code gagar runs inside the test process itself, before the candidate's, to see what that
 * code does to the harness from the inside (docs/security.md §7): `pytest_guard.py`, a pytest plugin,
 * and `node-guard.cjs`, preloaded into every Node.js process of the run. They report on a pipe of their
 * own that only the trusted runner reads (GUARD_FD; sandbox-runner.py), and guard-log.ts turns the
 * records into findings. This module decides what they watch (once per task: `guardFacts`) and how a
 * run loads them (per run, with fresh random module names: `guardSetup`).
 */

/** Where the guards write: a pipe next to the report pipe (fd 3). */
export const GUARD_FD = 4;
/** What the runner keeps of a run's guard records (sandbox-runner.py GUARD_CAP). */
export const GUARD_CAP = 2 ** 20;
const WORKSPACE = "/workspace";
const CODE_FILE = /\.(py|[cm]?[jt]sx?)$/;
const PY_IMPORT = /^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([^#\n]+))/gm;
const PY_FROM_NAMES = /^from\s+([A-Za-z_][\w.]*)\s+import\s+\(?([^)#\n]+)\)?/gm;

/** What the guards of a task's runs watch, from its hidden tests and its pristine repository. */
export interface GuardFacts {
  /** Workspace-relative code files of the hidden tests, which code under test must not read. */
  testSources: string[];
  /**
   * Those of them that declare tests (test-modules.ts): a process started on one runs the tests again;
   * on another (an executable fixture) it does not.
   */
  testModules: string[];
  /** Directories of the hidden tests: code there is test code, not the candidate's. */
  testDirs: string[];
  /** Top-level Python modules of the repository → the directory they live in ("" for the root). */
  modules: Record<string, string>;
  /** Modules the hidden Python tests import that are not the repository's (dotted names kept). */
  watch: string[];
  /**
   * Per hidden Python test module: its top-level `from module import name as alias`, as [module, name,
   * alias]; a star import is [module, "*", "*"].
   */
  testImports: Record<string, [string, string, string][]>;
}

export function guardFacts(
  hiddenTests: readonly string[],
  readHidden: (rel: string) => string,
  repoPaths: Iterable<string>,
): GuardFacts {
  const testSources = hiddenTests.filter((f) => CODE_FILE.test(f));
  const testModules = testSources.filter((f) => declaresTests(f, readHidden(f)));
  const testDirs = [...new Set(hiddenTests.map((f) => posix.dirname(f)).filter((d) => d !== "."))].sort();
  const paths = [...repoPaths];
  const modules = repositoryModules(paths, testDirs);
  // A name that a module in a test directory also has (a hidden helper `tests/utils.py` beside a
  // repository `utils.py`) is imported from the test directory by design: not watched.
  for (const path of [...paths, ...hiddenTests]) {
    const dir = posix.dirname(path);
    if (!testDirs.some((t) => dir === t || dir.startsWith(`${t}/`)) || !path.endsWith(".py")) continue;
    const base = posix.basename(path, ".py");
    delete modules[base === "__init__" ? posix.basename(dir) : base];
  }
  const imported = new Set<string>();
  const testImports: Record<string, [string, string, string][]> = {};
  for (const file of testSources.filter((f) => f.endsWith(".py"))) {
    const text = readHidden(file);
    for (const m of text.matchAll(PY_IMPORT)) {
      if (m[1]) imported.add(m[1]);
      for (const part of (m[2] ?? "").split(",")) {
        const name = /^\s*([A-Za-z_][\w.]*)/.exec(part)?.[1];
        if (name) imported.add(name);
      }
    }
    const names: [string, string, string][] = [];
    for (const m of text.matchAll(PY_FROM_NAMES)) {
      for (const part of m[2]!.split(",")) {
        if (part.trim() === "*") names.push([m[1]!, "*", "*"]);
        const bound = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
        if (bound) names.push([m[1]!, bound[1]!, bound[2] ?? bound[1]!]);
      }
    }
    if (names.length) testImports[file] = names;
  }
  const watch = [...imported]
    .filter((n) => !(n.split(".")[0]! in modules) && n !== "__future__" && !n.startsWith("."))
    .sort();
  return { testSources, testModules, testDirs, modules, watch, testImports };
}

/**
 * Top-level Python modules and packages at the repository's root and in a `src/` or `lib/` layout,
 * with the directory each lives in. Test directories are not the code under test.
 */
function repositoryModules(paths: Iterable<string>, testDirs: readonly string[]): Record<string, string> {
  const modules: Record<string, string> = {};
  const isTestDir = (dir: string) => testDirs.some((t) => t === dir || t.startsWith(`${dir}/`));
  for (const path of paths) {
    if (!path.endsWith(".py")) continue;
    for (const root of ["", "src", "lib"]) {
      const prefix = root ? `${root}/` : "";
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length).split("/");
      const head = rest.length === 1 ? rest[0]!.replace(/\.py$/, "") : rest[0]!;
      if (!/^[A-Za-z_]\w*$/.test(head) || head === "setup" || head === "conftest") continue;
      if (rest.length > 1 && (isTestDir(prefix + head) || LAYOUT_DIRS.has(head))) continue;
      if (rest.length === 1 && root === "" && /^test_|_test$/.test(head)) continue;
      modules[head] ??= root;
    }
  }
  return modules;
}

/** Directories that hold a project's code or scripts without being a package of their own. */
const LAYOUT_DIRS = new Set([
  "src",
  "lib",
  "docs",
  "doc",
  "examples",
  "example",
  "scripts",
  "tools",
  "bin",
  "benchmarks",
  "tests",
  "test",
]);

export interface GuardSetup {
  /** Variables that load the guards (merged into the run's environment). */
  env: Record<string, string>;
  /** The guard modules, bound read-only under /gagar/support. */
  support: PlanFile[];
  /** A run's command line, with the guards' directory added where the command sets PYTHONPATH itself. */
  argv(argv: readonly string[]): string[];
}

const PYTEST_GUARD = readFileSync(new URL("./pytest_guard.py", import.meta.url), "utf8");
const NODE_GUARD = readFileSync(new URL("./node-guard.cjs", import.meta.url), "utf8");
/** The modules the Node.js guard's entry loads from its own directory, by these names. */
const NODE_GUARD_PARTS: PlanFile[] = ["code", "observed", "events", "origins", "imports", "watches"].map(
  (part) => ({
    path: `node-guard-${part}.cjs`,
    content: readFileSync(new URL(`./node-guard-${part}.cjs`, import.meta.url), "utf8"),
  }),
);

/**
 * How a run loads the guards: the pytest plugin through PYTEST_ADDOPTS (so any way the task starts
 * pytest loads it) and PYTHONPATH, composed with the task's own (its `test.env`, and the assignments of
 * its command: python-path.ts), the Node.js guard through NODE_OPTIONS (every node process of the
 * run). Module names are random per run, so a patch cannot plant a module of the same name ahead of
 * them. A Python command run isolated (`-I`, `-E`) ignores PYTHONPATH, so it gets no pytest guard.
 */
export function guardSetup(
  facts: GuardFacts,
  plan: TestPlan,
  command: readonly string[],
  taskEnv: Readonly<Record<string, string>> = {},
): GuardSetup {
  const planned = plan.files.map((f) => f.path).filter((p) => CODE_FILE.test(p));
  const config = {
    fd: GUARD_FD,
    workspace: WORKSPACE,
    testSources: [...new Set([...facts.testSources, ...planned])].sort(),
    // Files the runner adapter plans (canaries, wrappers) run tests.
    testModules: [...new Set([...facts.testModules, ...planned])].sort(),
    testDirs: facts.testDirs,
    modules: facts.modules,
    watch: facts.watch,
    testImports: facts.testImports,
    harness: plan.harness ?? NODE_HARNESS,
  };
  const pyName = `_${nonce()}`;
  const nodeName = `${nonce()}.cjs`;
  const env: Record<string, string> = {
    GAGAR_GUARD: JSON.stringify(config),
    NODE_OPTIONS: join(taskEnv.NODE_OPTIONS, `--require ${SUPPORT_DIR}/${nodeName}`),
  };
  const support: PlanFile[] = [{ path: nodeName, content: NODE_GUARD }, ...NODE_GUARD_PARTS];
  if (ignoresPythonPath(command)) return { env, support, argv: (argv) => [...argv] };
  env.PYTEST_ADDOPTS = join(taskEnv.PYTEST_ADDOPTS, `-p ${pyName}`);
  env.PYTHONPATH = join(taskEnv.PYTHONPATH, SUPPORT_DIR, ":");
  support.push({ path: `${pyName}.py`, content: PYTEST_GUARD });
  return { env, support, argv: (argv) => withPythonPath(argv, SUPPORT_DIR) };
}

function join(existing: string | undefined, added: string, separator = " "): string {
  return existing ? `${existing}${separator}${added}` : added;
}
