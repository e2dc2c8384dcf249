import { posix } from "node:path";
import { type CanaryCheck, type CanaryFile, nodeCanaryWrapper, pytestCanary } from "./canary.ts";
import type { JunitCase } from "./junit-report.ts";
import { testIdFile } from "./protected-paths.ts";
import type { TaskPack } from "./task-pack.ts";
import { nodeCaseId, pytestCaseKey, pytestKey } from "./test-ids.ts";

/**
 * Turns a task's test command into the runs of one verification.
 *
 * `{junit}` becomes `/proc/self/fd/3`: the write end of a pipe that only the in-sandbox runner reads
 * (sandbox-runner.py explains why a file path would be forgeable). `{tests}` becomes the test files:
 * the hidden test files that look like tests plus every file a test id names, and the canaries.
 *
 * - **pytest** (language python): one run; a canary module in each directory that holds test files.
 * - **node:test** (javascript/typescript): one run per test file, because node's JUnit reporter does
 *   not say which file a testcase came from; `{tests}` is a wrapper module beside the file that imports
 *   it and adds the canaries (canary.ts), and the run's testcases get the ids `<file>::<suite> > <name>`.
 */

export const REPORT_FD = 3;
const REPORT_PATH = `/proc/self/fd/${REPORT_FD}`;

export type Flavor = "pytest" | "node";

export interface PlannedRun {
  label: string;
  argv: string[];
  flavor: Flavor;
  /** node: the test file this run covers. */
  testFile?: string;
  canaries: CanaryCheck[];
}

export interface TestPlan {
  flavor: Flavor;
  runs: PlannedRun[];
  /** Canary files to lay over the workspace, read-only. */
  files: CanaryFile[];
}

const PY_TEST = /(^|\/)(test_[^/]*|[^/]*_test)\.py$/;
const JS_TEST =
  /(^|\/)(test\/.*\.[cm]?[jt]sx?|[^/]*[._-]test\.[cm]?[jt]sx?|test-[^/]*\.[cm]?[jt]sx?|test\.[cm]?[jt]sx?)$/;

export function flavorOf(pack: TaskPack): Flavor {
  return pack.spec.language === "python" ? "pytest" : "node";
}

/** The test files `{tests}` stands for (before canaries), sorted. */
export function testFiles(pack: TaskPack): string[] {
  const pattern = flavorOf(pack) === "pytest" ? PY_TEST : JS_TEST;
  const files = new Set(pack.hiddenTests.filter((f) => pattern.test(f)));
  for (const id of [...pack.spec.failToPass, ...pack.spec.passToPass]) {
    const file = testIdFile(id);
    if (file) files.add(file);
  }
  return [...files].sort();
}

export function planTests(pack: TaskPack): TestPlan {
  const command = pack.spec.test.command;
  const files = testFiles(pack);
  const expand = (tests: string[]) =>
    command.flatMap((arg) => (arg === "{tests}" ? tests : [arg.replaceAll("{junit}", REPORT_PATH)]));
  if (flavorOf(pack) === "pytest") {
    const dirs = [...new Set(files.map((f) => posix.dirname(f)).map((d) => (d === "." ? "" : d)))];
    const canaries = (dirs.length ? dirs : [""]).map(pytestCanary);
    const run: PlannedRun = {
      label: "pytest",
      argv: expand([...files, ...canaries.map((c) => c.path)]),
      flavor: "pytest",
      canaries: canaries.flatMap((c) => c.checks),
    };
    return { flavor: "pytest", runs: [run], files: canaries };
  }
  const wrappers = files.map((file) => ({ file, wrapper: nodeCanaryWrapper(file) }));
  return {
    flavor: "node",
    runs: wrappers.map(({ file, wrapper }) => ({
      label: file,
      argv: expand([wrapper.path]),
      flavor: "node" as const,
      testFile: file,
      canaries: wrapper.checks,
    })),
    files: wrappers.map((w) => w.wrapper),
  };
}

/** The key under which a testcase of `run` is indexed. */
export function caseKey(run: PlannedRun, c: JunitCase): string {
  return run.flavor === "pytest" ? pytestCaseKey(c) : nodeCaseId(run.testFile!, c);
}

/** The key a test id is indexed under (see test-ids.ts for why pytest ids are mangled). */
export function idKey(flavor: Flavor, id: string): string {
  return flavor === "pytest" ? pytestKey(id) : id;
}

/** Which run reports test id `id`, and under which key; null when no run covers it. */
export function locateId(plan: TestPlan, id: string): { run: number; key: string } | null {
  if (plan.flavor === "pytest") return plan.runs.length ? { run: 0, key: idKey("pytest", id) } : null;
  const file = testIdFile(id);
  const run = plan.runs.findIndex((r) => r.testFile === file);
  return run < 0 ? null : { run, key: id };
}
