import type { TestStatus } from "../contracts/verdict.ts";

/**
 * FAIL_TO_PASS and PASS_TO_PASS from two runs of the task's tests (base + hidden tests, then with the
 * reference fix), as SWE-bench defines them: a test that passes with the fix and not without it is
 * fail-to-pass; one that passes in both is pass-to-pass. Anything else (failing with the fix, skipped,
 * missing) is in neither list. Ids come from the runner's id space (runners/), sorted.
 */
export interface DerivedLists {
  failToPass: string[];
  passToPass: string[];
}

export function deriveLists(
  before: Readonly<Record<string, TestStatus>>,
  after: Readonly<Record<string, TestStatus>>,
): DerivedLists {
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const [id, status] of Object.entries(after)) {
    if (status !== "passed") continue;
    if (before[id] === "passed") passToPass.push(id);
    else failToPass.push(id);
  }
  return { failToPass: failToPass.sort(), passToPass: passToPass.sort() };
}
