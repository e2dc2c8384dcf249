import type { TestStatus } from "../contracts/verdict.ts";

/**
 * FAIL_TO_PASS and PASS_TO_PASS from two runs of the task's tests (base + hidden tests, then with the
 * reference fix), as SWE-bench defines them: a test that passes with the fix and not without it is
 * fail-to-pass; one that passes in both is pass-to-pass. Anything else (failing with the fix, skipped,
 * missing) is in neither list. Ids come from the runner's id space (runners/), sorted.
 *
 * When the base run did not finish (it timed out: an endless loop, a server left open), a test it never
 * reported is not known to fail without the fix: it is not fail-to-pass, which would turn every test
 * after the hang into one. It passes with the fix, so it is kept as pass-to-pass (a candidate must not
 * break it either) and listed in `unreached`, so that the import can say so.
 */
export interface DerivedLists {
  failToPass: string[];
  passToPass: string[];
  /** Tests of passToPass that the unfinished base run never reported. */
  unreached: string[];
}

export function deriveLists(
  before: Readonly<Record<string, TestStatus>>,
  after: Readonly<Record<string, TestStatus>>,
  beforeFinished = true,
): DerivedLists {
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  const unreached: string[] = [];
  for (const [id, status] of Object.entries(after)) {
    if (status !== "passed") continue;
    const was = before[id];
    if (was === "passed") passToPass.push(id);
    else if (was === undefined && !beforeFinished) {
      passToPass.push(id);
      unreached.push(id);
    } else failToPass.push(id);
  }
  return { failToPass: failToPass.sort(), passToPass: passToPass.sort(), unreached: unreached.sort() };
}
