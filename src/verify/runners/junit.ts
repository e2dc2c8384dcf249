import type { JunitCase } from "../verdict/junit-report.ts";
import { expandCommand, nonce } from "./canary.ts";
import type { PlannedRun, TestPlan, TestRunner } from "./types.ts";
import { REPORT_PATH } from "./types.ts";

/**
 * junit: any command that writes a JUnit XML report to `{junit}` (maven surefire through a report
 * copy, go-junit-report, ctest, a project's own script). Ids are `<classname>::<name>`, or `<name>` for
 * cases without a classname.
 *
 * gagar cannot write canaries for a framework it does not know, so the task brings a **canary command**
 * (`test.canaryCommand`), run in the same sandbox right after the tests: it gets `{pass}`, `{fail}` and
 * `{message}` and must report a passing testcase whose name contains `{pass}` and a failing one whose
 * name contains `{fail}` and whose message contains `{message}` (e.g. a script in tests/ that writes two tests in the project's framework
 * and runs them). Because it is a second process, it catches a broken or forged framework set-up, not
 * in-process forgery of the graded tests; that is the weaker guarantee of this adapter.
 */
export const junitRunner: TestRunner = {
  name: "junit",
  idStyle: "own",
  needsTestFiles: false,
  needsCanaryCommand: true,
  defaultCommand: [],
  requires: ["{junit}"],
  python: false,
  // A command gagar knows nothing about: Node's own objects only (guard-setup.ts's default).
  harness: [],
  fileOf: () => null,
  isTestFile: () => true,
  checkId: (id) => (id.trim() ? null : "empty test id"),
  plan({ command, testFiles, canaryCommand }) {
    const key = (c: JunitCase) => (c.classname ? `${c.classname}::${c.name}` : c.name);
    const runs: PlannedRun[] = [
      {
        label: "tests",
        argv: expandCommand(command, { junit: REPORT_PATH }, testFiles),
        keysOf: (c) => [key(c)],
        idOf: key,
        canaries: [],
      },
    ];
    if (canaryCommand?.length) {
      const [pass, fail, message] = [`gagar_${nonce()}`, `gagar_${nonce()}`, nonce()];
      runs.push({
        label: "canaries",
        argv: expandCommand(canaryCommand, { junit: REPORT_PATH, pass, fail, message }, testFiles),
        // Frameworks want their own prefixes (`test_`, `Test`), so a canary is found by the nonce its name contains.
        keysOf: (c) => [[pass, fail].find((n) => c.name.includes(n)) ?? c.name],
        idOf: (c) => c.name,
        canaries: [
          { id: pass, key: pass, expect: "pass" },
          { id: fail, key: fail, expect: "fail", message },
        ],
      });
    }
    return { runs, files: [], support: [], locate: (id) => ({ run: 0, key: id }) } satisfies TestPlan;
  },
};
