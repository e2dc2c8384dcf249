import type { TestStatus } from "../../contracts/verdict.ts";
import type { CaseStatus, JunitCase } from "./junit-report.ts";

/**
 * Test ids, and how they are found in JUnit reports. Matching is exact, never by substring.
 *
 * **pytest** ids are pytest node ids relative to the workspace root: `tests/test_calc.py::test_div`,
 * `tests/test_x.py::TestK::test_m`, `tests/test_p.py::test_q[a-b]`. pytest writes a testcase's
 * `classname`/`name` by "mangling" the node id (`_pytest/junitxml.py: mangle_test_address`: the file
 * part's `/` become `.`, `.py` is dropped, parameters stay on the name). We mangle each expected id the
 * same way and compare (classname, name) pairs exactly. That is robust where rebuilding the id from the
 * xunit1 `file` attribute is not: `file` is where the function is *defined*, which differs for tests
 * inherited from a base class in another module. For display, `pytestCaseId` rebuilds the node id from
 * `file` when it agrees with the classname. Run pytest with `-o junit_family=xunit1` so `file` exists
 * (matching works without it).
 *
 * The JavaScript runners' ids are described in runners/js-ids.ts, each runner's key space in its adapter.
 */

const SEP = "\u0000";

/** The (classname, name) key pytest's junitxml writes for node id `id`. */
export function pytestKey(id: string): string {
  const bracket = id.indexOf("[");
  const path = bracket < 0 ? id : id.slice(0, bracket);
  const params = bracket < 0 ? "" : id.slice(bracket);
  const names = path.split("::");
  names[0] = names[0]!.replaceAll("/", ".").replace(/\.py$/, "");
  names[names.length - 1] += params;
  return names.slice(0, -1).join(".") + SEP + names.at(-1)!;
}

export function pytestCaseKey(c: JunitCase): string {
  return c.classname + SEP + c.name;
}

/** The pytest node id of a reported case, rebuilt from `file` + `classname` where they agree. */
export function pytestCaseId(c: JunitCase): string {
  if (c.file?.endsWith(".py")) {
    const module = c.file.slice(0, -3).replaceAll("/", ".");
    if (c.classname === module) return `${c.file}::${c.name}`;
    if (c.classname.startsWith(`${module}.`)) {
      const classes = c.classname.slice(module.length + 1).split(".");
      return [c.file, ...classes, c.name].join("::");
    }
  }
  return c.classname ? `${c.classname}::${c.name}` : c.name;
}

/** Worst first: one failing instance of an id fails the id. */
const SEVERITY: Record<CaseStatus, number> = { error: 4, failed: 3, xfail: 2, skipped: 1, passed: 0 };

export interface CaseResult {
  status: CaseStatus;
  timeSec: number;
  message: string;
  /** How many testcases carried this id (duplicates are combined, worst status wins). */
  count: number;
}

/** Indexes cases under each of their keys, combining duplicates. */
export function indexCases(
  cases: readonly JunitCase[],
  keysOf: (c: JunitCase) => readonly string[],
): Map<string, CaseResult> {
  const byKey = new Map<string, CaseResult>();
  for (const c of cases) for (const key of keysOf(c)) add(byKey, key, c);
  return byKey;
}

function add(byKey: Map<string, CaseResult>, key: string, c: JunitCase): void {
  {
    const prev = byKey.get(key);
    if (!prev) {
      byKey.set(key, { status: c.status, timeSec: c.timeSec, message: c.message, count: 1 });
      return;
    }
    prev.count++;
    prev.timeSec += c.timeSec;
    if (SEVERITY[c.status] > SEVERITY[prev.status]) {
      prev.status = c.status;
      prev.message = c.message;
    }
  }
}

export function statusOf(result: CaseResult | undefined): TestStatus {
  return result?.status ?? "missing";
}
