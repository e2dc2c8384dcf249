import type { TestPlan } from "../runners/types.ts";
import type { JunitCase } from "./junit-report.ts";
import type { CaseResult } from "./test-ids.ts";

type PlannedRun = TestPlan["runs"][number];
type Canary = PlannedRun["canaries"][number];

/**
 * Check 5 of the verdict (verdict.ts) for one test run, pure: every canary the run reported behaved —
 * a must-pass canary passed, a must-fail one failed with its own message, and the runner did not exit 0
 * although one failed. `forged` says what did not, for a `forged` verdict; `missing` counts the canaries
 * the run did not report (judged with the expected tests, check 6).
 */
export function checkRunCanaries(
  run: PlannedRun,
  exitCode: number | null,
  index: ReadonlyMap<string, CaseResult>,
  cases: readonly JunitCase[],
  label: string,
): { forged?: string; missing: number } {
  let missing = 0;
  let canaryFailed = false;
  for (const canary of run.canaries) {
    const got = index.get(canary.key);
    if (!got) {
      missing++;
      continue;
    }
    if ((got.status === "skipped" || got.status === "xfail") && skippedWithItsTests(run, canary, cases))
      continue;
    if (canary.expect === "pass" && got.status !== "passed")
      return { forged: `the must-pass canary${label} was reported ${got.status}`, missing };
    if (canary.expect === "fail") {
      if (got.status !== "failed")
        return { forged: `a must-fail canary${label} was reported ${got.status}`, missing };
      if (canary.message && !got.message.includes(canary.message))
        return { forged: `a must-fail canary${label} failed with a message it never raised`, missing };
      canaryFailed = true;
    }
  }
  if (canaryFailed && exitCode === 0)
    return { forged: `the test runner${label} exited 0 although a canary failed`, missing };
  return { missing };
}

/**
 * A canary skipped together with every other test of its module (of its folder, for a canary module of
 * its own): the module or folder skips itself — a mark on all its tests, `importorskip` of a missing
 * optional dependency, `setUpModule` raising SkipTest, a conftest hook — and the canary with it. That says
 * nothing about the run; those tests are not passes either, so a skip puts no hidden test through.
 */
function skippedWithItsTests(run: PlannedRun, canary: Canary, cases: readonly JunitCase[]): boolean {
  const canaryKeys = new Set(run.canaries.map((c) => c.key));
  const tests = cases.filter((c) => !run.keysOf(c).some((k) => canaryKeys.has(k)));
  const file = fileOfTestId(canary.id);
  const folder = file.slice(0, file.lastIndexOf("/") + 1);
  const sameFile = tests.filter((c) => fileOfTestId(run.idOf(c)) === file);
  const scope = sameFile.length
    ? sameFile
    : tests.filter((c) => fileOfTestId(run.idOf(c)).startsWith(folder));
  return scope.length > 0 && scope.every((c) => c.status === "skipped" || c.status === "xfail");
}

function fileOfTestId(id: string): string {
  const at = id.indexOf("::");
  return at < 0 ? id : id.slice(0, at);
}
