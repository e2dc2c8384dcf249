/**
 * What a changed path is, as far as grading cares: source, test, snapshot, test-runner config, CI
 * config, docs, or junk. Decided from the path alone (plus, for shared config files like
 * package.json, whether the changed lines are about tests), so every candidate is classified alike.
 */

export type PathRole = "source" | "test" | "snapshot" | "runner" | "ci" | "docs" | "junk" | "scratch";

const SNAPSHOT = /(^|\/)__snapshots__\/|\.snap$|\.ambr$/;
const TEST =
  /(^|\/)(tests?|__tests__|spec|specs|testing|test-?data)\/|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)test_[^/]*\.py$|_test\.(py|go|rb)$|_spec\.rb$|(Tests?|IT)\.(java|kt|scala)$|(^|\/)src\/(test|androidTest)\//;
/** Files that decide how tests are collected and run, whatever their content. */
const RUNNER =
  /(^|\/)(conftest\.py|pytest\.ini|tox\.ini|noxfile\.py|sitecustomize\.py|usercustomize\.py|(jest|vitest|karma|playwright|cypress|ava|wdio)\.config\.[cm]?[jt]s(on)?|karma\.conf\.js|\.mocharc\.[a-z]+|jasmine\.json|phpunit\.xml(\.dist)?|\.rspec)$|\.pth$/;
/** Shared build files that are a runner config only when the change is about tests. */
const MAYBE_RUNNER =
  /(^|\/)(package\.json|setup\.cfg|pyproject\.toml|pom\.xml|build\.gradle(\.kts)?|Makefile|vite\.config\.[cm]?[jt]s)$/;
const RUNNER_WORDS =
  /\b(pytest|addopts|testpaths|python_files|jest|vitest|mocha|surefire|failsafe|skipTests|testFailureIgnore|ignoreFailures|maven\.test\.skip|"test"\s*:|^\s*test\s*:)/;
const CI =
  /(^|\/)(\.github\/workflows\/|\.circleci\/|\.buildkite\/)|(^|\/)(\.gitlab-ci\.yml|\.travis\.yml|azure-pipelines\.yml|appveyor\.yml|Jenkinsfile|bitbucket-pipelines\.yml)$/;
const DOCS =
  /\.(md|rst|txt|adoc)$|(^|\/)(docs?|documentation|changelog_unreleased)\/|(^|\/)(CHANGELOG|CHANGES|HISTORY|NEWS|README|AUTHORS)[^/]*$/i;
const JUNK =
  /\.(orig|rej|bak|swp|swo|tmp|log|pyc|pyo|class|o|obj|zip|tar|gz|tgz|bz2|xz|7z|rar|jar|war|whl|egg|so|dll|dylib|exe)$|~$|(^|\/)(#[^/]*#|\.DS_Store|Thumbs\.db|nohup\.out|\.coverage|coverage\.xml|junit[^/]*\.xml)$|(^|\/)(__pycache__|node_modules|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.nyc_output|\.idea|\.vscode|\.eggs|[^/]+\.egg-info)\//;
/** Build output directories; only junk when the file is newly added (some repos commit dist/). */
const BUILD_OUTPUT = /(^|\/)(dist|build|target|out|coverage)\//;
/** Throwaway scripts agents write at the repository root while investigating. */
const SCRATCH =
  /^(reproduce|repro|debug|scratch|tmp|temp|try|test_fix|test_issue|test_reproduce|test_bug|verify|check)[\w.-]*\.(py|js|mjs|ts|sh|java|rb|go)$/i;

export interface PathFacts {
  path: string;
  /** True when the file did not exist before the patch. */
  added: boolean;
  /** The changed lines (added and deleted), to decide shared build files like package.json. */
  changedText: readonly string[];
}

export function pathRole({ path, added, changedText }: PathFacts): PathRole {
  if (added && SCRATCH.test(path)) return "scratch";
  if (JUNK.test(path) || (added && BUILD_OUTPUT.test(path))) return "junk";
  if (RUNNER.test(path)) return "runner";
  if (MAYBE_RUNNER.test(path) && changedText.some((line) => RUNNER_WORDS.test(line))) return "runner";
  if (CI.test(path)) return "ci";
  if (SNAPSHOT.test(path)) return "snapshot";
  if (TEST.test(path)) return "test";
  if (DOCS.test(path)) return "docs";
  return "source";
}

/** Code whose job is to run or print things: entry points, scripts, tools, examples, benchmarks. */
const SCRIPT_PATH =
  /(^|\/)(bin|scripts?|tools|examples?|demos?|cli|cmd|benchmarks?)\/|(^|\/)(__main__|main|cli|manage|setup)\.[a-z]+$/;

export function isScriptPath(path: string): boolean {
  return SCRIPT_PATH.test(path);
}

/** Test and snapshot files: where visible test literals come from, and where edits are tampering. */
export function isTestRole(role: PathRole): boolean {
  return role === "test" || role === "snapshot";
}
