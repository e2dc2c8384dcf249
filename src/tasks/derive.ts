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

/**
 * Ids that may change from one run to the next: a test the reference run reported that the base run
 * did not, while the base run reported one the reference did not with the same skeleton — the id with
 * its parameters (`test_x[…]`) left out, or else with its numbers left out. A parametrisation with
 * the time (`test_x[07:16:33 2026-12-05]`, marshmallow's tests take `datetime.now()`) or a random value
 * names a test differently in every run; derived lists holding such an id would name a test that never
 * appears again. A parametrisation that follows the code under test (a format the fix adds) looks the
 * same, so these are only suspects: a second run of the reference tells them apart (`unstableIds`).
 */
export function changingIdSuspects(
  before: Readonly<Record<string, TestStatus>>,
  after: Readonly<Record<string, TestStatus>>,
): string[] {
  const onlyBefore = new Set(
    Object.keys(before)
      .filter((id) => !(id in after))
      .map(skeleton),
  );
  return Object.keys(after)
    .filter((id) => !(id in before) && onlyBefore.has(skeleton(id)))
    .sort();
}

/** Ids one of two runs of the same patch reported and the other did not. */
export function unstableIds(
  first: Readonly<Record<string, TestStatus>>,
  second: Readonly<Record<string, TestStatus>>,
): string[] {
  const once = (a: Readonly<Record<string, TestStatus>>, b: Readonly<Record<string, TestStatus>>) =>
    Object.keys(a).filter((id) => !(id in b));
  return [...once(first, second), ...once(second, first)].sort();
}

/** The lists without `drop`. */
export function without(lists: DerivedLists, drop: readonly string[]): DerivedLists {
  const gone = new Set(drop);
  const keep = (ids: string[]) => ids.filter((id) => !gone.has(id));
  return {
    failToPass: keep(lists.failToPass),
    passToPass: keep(lists.passToPass),
    unreached: keep(lists.unreached),
  };
}

/** An id with its parameter part (`[…]` after the last `::`) emptied, or else its numbers. */
function skeleton(id: string): string {
  const name = id.lastIndexOf("::");
  const bracket = id.indexOf("[", Math.max(name, 0));
  if (bracket >= 0 && id.endsWith("]")) return `${id.slice(0, bracket)}[]`;
  return id.replace(/\d+/g, "#");
}
