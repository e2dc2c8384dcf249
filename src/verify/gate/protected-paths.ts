import type { Severity } from "../../contracts/finding.ts";
import { globToRegExp, matchesAny } from "./glob.ts";

/**
 * Which repository paths a candidate patch may never create or change, and why.
 *
 * Two classes, both from security.md §3/§4.2:
 * - **forbidden** paths make the whole patch unacceptable (path escapes, `.git/`, bytecode, native
 *   code, interpreter start-up hooks): nothing honest needs them and any of them can subvert the run.
 * - **protected** paths are legitimate files of the repository that decide how tests run or what
 *   they assert (hidden tests, files named by test ids, conftest, runner configs, CI files,
 *   installed packages (`node_modules`, Python's `site-packages`), `task.protectedPaths`). The gate
 *   strips or rejects changes to them by policy and
 *   always reports a finding, because a candidate that needed them to pass is cheating.
 */

export type TamperKind = "test-tampering" | "config-tampering";

export interface Protection {
  kind: TamperKind;
  severity: Severity;
  /** Human-readable reason ("hidden test", "pytest configuration"…). */
  why: string;
  /**
   * Whether the pristine file is laid read-only over the workspace for the test run, so that code
   * running during the tests cannot change it either. False for CI files, which nothing runs.
   */
  restore: boolean;
}

/** Runner configuration files that change collection, options or plugins. */
const CONFIG_NAMES = new Set([
  "pytest.ini",
  ".pytest.ini",
  "pytest.toml",
  ".pytest.toml",
  "setup.cfg",
  "tox.ini",
  "pyproject.toml",
  "package.json",
  ".npmrc",
  ".babelrc",
  ".babelrc.json",
  "tsconfig.json",
]);
const CONFIG_PATTERNS = [
  /^(jest|vitest|vite|mocha|babel|ava|playwright)\.config\.[cm]?[jt]sx?$/,
  /^(jest|vitest|vite|mocha|babel)\.config\.json$/,
  /^vitest\.(workspace|setup)\.[cm]?[jt]s(on)?$/,
  /^\.mocharc(\.[a-z]+)?$/,
  /^jest\.setup\.[cm]?[jt]s$/,
];
/** CI and task-runner files: the verifier never uses them, so an edit is only a monitoring signal. */
const CI_PATTERNS = [
  /^\.github\//,
  /^\.gitlab-ci\.ya?ml$/,
  /^\.circleci\//,
  /^\.travis\.ya?ml$/,
  /^azure-pipelines\.ya?ml$/,
  /^Jenkinsfile$/,
  /^noxfile\.py$/,
  /^Makefile$/,
  /^\.pre-commit-config\.ya?ml$/,
];

/**
 * Why `path` may never appear in a patch, or null. Checks the path text only; modes and binary
 * hunks are the gate's business.
 */
export function forbiddenReason(path: string): string | null {
  if (path === "") return "empty path";
  if (path.startsWith("/")) return "absolute path";
  if ([...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    return "control character in path";
  if (path.includes("\\")) return "backslash in path";
  // parse.ts decodes names as UTF-8: a name git would write with other bytes is not the name checked here.
  if (path.includes("\ufffd")) return "path bytes that are not UTF-8";
  const parts = path.split("/");
  for (const part of parts) {
    if (part === "" || part === ".") return "empty or '.' path component";
    if (part === "..") return "'..' path component";
    if (part.toLowerCase() === ".git") return ".git metadata";
    // git's verify_path refuses what NTFS would resolve to .git (".git.", ".git ", "git~1").
    if (/^(\.git|git~1)[. ]*(:.*)?$/i.test(part)) return ".git metadata (NTFS alias)";
    if (part === "__pycache__") return "__pycache__ directory (bytecode)";
  }
  const base = parts.at(-1)!;
  const lower = base.toLowerCase();
  if (/\.py[co]$/.test(lower)) return "Python bytecode";
  if (/\.(so|dylib|pyd|dll)(\.\d+)*$/.test(lower)) return "native library";
  if (lower.endsWith(".pth")) return ".pth start-up hook";
  if (lower === "sitecustomize.py" || lower === "usercustomize.py") return `${base} start-up hook`;
  // Packaging metadata on the import path makes Python and pytest load code from it (entry points,
  // pytest11 plugins, editable finders): no fix needs to add it.
  for (const part of parts.map((p) => p.toLowerCase())) {
    if (part.endsWith(".dist-info") || part.endsWith(".egg-info") || part.endsWith(".egg-link"))
      return "Python packaging metadata (entry points load code)";
    if (part.startsWith("__editable__")) return "editable-install finder";
  }
  if (lower === "entry_points.txt") return "Python entry points (load code into the test runner)";
  return null;
}

export interface PathPolicyInput {
  /** Hidden test files, relative to the repository root. */
  hiddenTests: readonly string[];
  /** Files named by failToPass/passToPass ids (their part before `::`). */
  testIdFiles: readonly string[];
  /** `task.json` `protectedPaths` globs. */
  protectedGlobs: readonly string[];
}

export class PathPolicy {
  private readonly tests: Set<string>;
  private readonly globs: RegExp[];

  constructor(private readonly input: PathPolicyInput) {
    this.tests = new Set([...input.hiddenTests, ...input.testIdFiles]);
    this.globs = input.protectedGlobs.map(globToRegExp);
  }

  /** The protection covering `path`, or null when a candidate may change it. */
  protectionOf(path: string): Protection | null {
    for (const test of this.tests) {
      if (path === test) return critical("test-tampering", "hidden or graded test file");
      // A file or directory on the way to a test, or below one, would stop the tests being laid over.
      if (test.startsWith(`${path}/`)) return critical("test-tampering", `parent of the test file ${test}`);
      if (path.startsWith(`${test}/`)) return critical("test-tampering", `below the test file ${test}`);
    }
    const base = path.slice(path.lastIndexOf("/") + 1);
    if (base === "conftest.py") return critical("test-tampering", "pytest conftest");
    const installed = installedPackagesDir(path);
    if (installed) return major("config-tampering", `${installed} (installed packages: the toolchain)`);
    if (CONFIG_NAMES.has(base) || CONFIG_PATTERNS.some((re) => re.test(base))) {
      return major("config-tampering", "test runner or package configuration");
    }
    if (CI_PATTERNS.some((re) => re.test(path)))
      return { ...major("config-tampering", "CI or task-runner file"), restore: false };
    if (matchesAny(path, this.globs))
      return major("config-tampering", "protected by the task (protectedPaths)");
    return null;
  }

  /** Directories Python puts on sys.path for these tests: the root and each test's directory. */
  get importRoots(): string[] {
    const dirs = new Set<string>([""]);
    for (const test of this.input.hiddenTests)
      dirs.add(test.includes("/") ? test.slice(0, test.lastIndexOf("/")) : "");
    return [...dirs];
  }
}

function critical(kind: TamperKind, why: string): Protection {
  return { kind, severity: "critical", why, restore: true };
}

function major(kind: TamperKind, why: string): Protection {
  return { kind, severity: "major", why, restore: true };
}

/** The file part of a test id (`tests/test_x.py::test_a[p]` → `tests/test_x.py`), or null without one. */
export function testIdFile(id: string): string | null {
  const at = id.indexOf("::");
  return at > 0 ? id.slice(0, at) : null;
}

/** Directory names that hold installed third-party packages: a `setup` environment's toolchain. */
export const INSTALLED_PACKAGE_DIRS = ["node_modules", "site-packages", "dist-packages"] as const;

/** The installed-packages directory a path lies in (`node_modules`, `site-packages`…), or null. */
export function installedPackagesDir(path: string): string | null {
  const parts = path.split("/");
  const at = parts.findIndex((p) => (INSTALLED_PACKAGE_DIRS as readonly string[]).includes(p));
  return at < 0 ? null : parts.slice(0, at + 1).join("/");
}
