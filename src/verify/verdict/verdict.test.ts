import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../sandbox/types.ts";
import { loadTaskPack } from "../pack/task-pack.ts";
import type { SafeRead } from "../run/safe-read.ts";
import { planTests } from "../run/test-plan.ts";
import type { TestPlan } from "../runners/types.ts";
import { type GradeInput, grade, type RunnerStatus } from "./verdict.ts";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));
const pack = loadTaskPack(`${FIXTURES}/calc-div-zero`);
const EXPECTED = [...pack.spec.failToPass, ...pack.spec.passToPass];

type Outcome = "passed" | "failed" | "error" | "skipped" | "xfail";

/** A pytest-style report: `outcomes` maps node ids to outcomes; `message` is the failure text. */
function pytestReport(outcomes: Record<string, Outcome | { status: Outcome; message: string }>): string {
  const cases = Object.entries(outcomes).map(([id, o]) => {
    const { status, message } = typeof o === "string" ? { status: o, message: "boom" } : o;
    const [file, ...names] = id.split("::");
    const name = names.pop()!;
    const classname = [file!.replace(/\.py$/, "").replaceAll("/", "."), ...names].join(".");
    const child = {
      passed: "",
      failed: `<failure message="${message}">trace</failure>`,
      error: `<error message="${message}"/>`,
      skipped: '<skipped type="pytest.skip" message="s"/>',
      xfail: '<skipped type="pytest.xfail" message=""/>',
    }[status];
    return `<testcase classname="${classname}" name="${name}" file="${file}" time="0.25">${child}</testcase>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">${cases.join("")}</testsuite></testsuites>`;
}

/** Canary outcomes as an honest run reports them. */
function canaries(plan: TestPlan): Record<string, { status: Outcome; message: string }> {
  return Object.fromEntries(
    plan.runs[0]!.canaries.map((c) => [
      c.id,
      c.expect === "pass"
        ? { status: "passed", message: "" }
        : { status: "failed", message: `AssertionError: ${c.message}` },
    ]),
  );
}

const TOKEN = "c0ffee";
const okRun: RunResult = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  outputCapped: false,
  stdout: "",
  stderr: "",
  durationMs: 900,
};

function status(
  overrides: Partial<RunnerStatus["runs"][number]> = {},
  apply: RunnerStatus["apply"] = null,
): SafeRead {
  const s: RunnerStatus = {
    version: 1,
    token: TOKEN,
    dumpable: 0,
    apply,
    removedBytecode: 0,
    runs: [
      {
        label: "pytest",
        exitCode: 1,
        signal: null,
        reportBytes: 1,
        reportTruncated: false,
        channelHeld: false,
        survivors: 0,
        durationMs: 700,
        ...overrides,
      },
    ],
  };
  return { ok: true, data: Buffer.from(JSON.stringify(s)) };
}

function input(plan: TestPlan, report: string | SafeRead, extra: Partial<GradeInput> = {}): GradeInput {
  return {
    failToPass: pack.spec.failToPass,
    passToPass: pack.spec.passToPass,
    plan,
    timeoutSec: 8,
    token: TOKEN,
    sandbox: okRun,
    status: status(),
    reports: [typeof report === "string" ? { ok: true, data: Buffer.from(report) } : report],
    secrets: [],
    ...extra,
  };
}

const allPassed = (plan: TestPlan) => ({
  ...Object.fromEntries(EXPECTED.map((id) => [id, "passed" as const])),
  ...canaries(plan),
});

describe("grade", () => {
  it("passes when every expected id passed and the canaries behaved", () => {
    const plan = planTests(pack);
    const g = grade(input(plan, pytestReport(allPassed(plan))));
    expect(g).toMatchObject({ passed: true, reason: "passed", findings: [] });
    expect(g.tests).toEqual(Object.fromEntries(EXPECTED.map((id) => [id, "passed"])));
    expect(g.durationsMs["tests/test_calc.py::test_div"]).toBe(250);
  });

  it.each(["failed", "error", "skipped", "xfail"] as const)(
    "fails a %s expected test, P2P included",
    (outcome) => {
      const plan = planTests(pack);
      const report = pytestReport({ ...allPassed(plan), "tests/test_calc.py::test_add": outcome });
      const g = grade(input(plan, report));
      expect(g).toMatchObject({ passed: false, reason: "tests-failed" });
      expect(g.tests["tests/test_calc.py::test_add"]).toBe(outcome);
      expect(g.detail).toBe(`tests/test_calc.py::test_add ${outcome}`);
    },
  );

  it("fails a missing id and never matches by prefix", () => {
    const plan = planTests(pack);
    const outcomes: Record<string, Outcome | { status: Outcome; message: string }> = allPassed(plan);
    delete outcomes["tests/test_calc.py::TestMessages::test_error_type_is_exact"];
    outcomes["tests/test_calc.py::TestMessages::test_error_type_is_exact_v2"] = "passed";
    const g = grade(input(plan, pytestReport(outcomes)));
    expect(g.reason).toBe("tests-failed");
    expect(g.tests["tests/test_calc.py::TestMessages::test_error_type_is_exact"]).toBe("missing");
  });

  it("calls a passing must-fail canary forgery", () => {
    const plan = planTests(pack);
    const outcomes = { ...allPassed(plan), [plan.runs[0]!.canaries[1]!.id]: "passed" as const };
    const g = grade(input(plan, pytestReport(outcomes)));
    expect(g).toMatchObject({ passed: false, reason: "forged" });
    expect(g.findings).toEqual([expect.objectContaining({ kind: "result-forgery", severity: "critical" })]);
  });

  it("leaves alone canaries skipped with every other test of their module or folder, and calls any other skip forgery", () => {
    const sources = new Map(
      pack.hiddenTests.map((p) => [p, readFileSync(join(pack.testsDir, p), "utf8")] as const),
    );
    const plan = planTests(pack, { sources, repositoryModules: new Set(["calc"]) });
    const ids = (file: string) => Object.keys(allPassed(plan)).filter((id) => id.startsWith(`${file}::`));
    const extra = ids("tests/test_extra.py");
    expect(extra.filter((id) => plan.runs[0]!.canaries.some((c) => c.id === id)).length).toBeGreaterThan(0);
    const skip = (names: string[]) => Object.fromEntries(names.map((id) => [id, "skipped" as const]));
    // tests/test_extra.py skips itself (a module-wide mark, a missing optional dependency), canaries too.
    const moduleSkipped = { ...allPassed(plan), ...skip(extra) };
    const elsewhere = (list: string[]) => list.filter((id) => !id.startsWith("tests/test_extra.py"));
    const others = {
      failToPass: elsewhere(pack.spec.failToPass),
      passToPass: elsewhere(pack.spec.passToPass),
    };
    expect(grade(input(plan, pytestReport(moduleSkipped), others))).toMatchObject({ passed: true });
    // With every hidden test, it is a failed run, not a forged one.
    const allSkipped = skip(Object.keys(allPassed(plan)));
    expect(grade(input(plan, pytestReport(allSkipped))).reason).toBe("tests-failed");
    // A canary skipped while a test of its module ran is forgery.
    const canary = plan.runs[0]!.canaries.find((c) => c.id.startsWith("tests/test_extra.py::"))!;
    const oneSkipped = { ...allPassed(plan), [canary.id]: "skipped" as const };
    expect(grade(input(plan, pytestReport(oneSkipped), others)).reason).toBe("forged");
  });

  it("calls a must-fail canary with the wrong message, or a failing must-pass canary, forgery", () => {
    const plan = planTests(pack);
    const [pass, fail] = plan.runs[0]!.canaries;
    const wrongMessage = {
      ...allPassed(plan),
      [fail!.id]: { status: "failed" as const, message: "assert 1 == 2" },
    };
    expect(grade(input(plan, pytestReport(wrongMessage))).reason).toBe("forged");
    const failingPass = { ...allPassed(plan), [pass!.id]: "failed" as const };
    expect(grade(input(plan, pytestReport(failingPass))).reason).toBe("forged");
  });

  it("calls a successful report without canaries forgery, but a failed one just failed", () => {
    const plan = planTests(pack);
    const success = pytestReport(Object.fromEntries(EXPECTED.map((id) => [id, "passed" as const])));
    expect(grade(input(plan, success)).reason).toBe("forged");
    const collectionError = pytestReport({ "tests/test_calc.py": "error" });
    const g = grade(input(plan, collectionError));
    expect(g.reason).toBe("tests-failed");
    expect(g.detail).toContain("canaries did not run");
  });

  it("calls exit status 0 with a failing canary forgery", () => {
    const plan = planTests(pack);
    const g = grade(input(plan, pytestReport(allPassed(plan)), { status: status({ exitCode: 0 }) }));
    expect(g.reason).toBe("forged");
  });

  it("calls a second document in the report channel forgery", () => {
    const plan = planTests(pack);
    const report = pytestReport(allPassed(plan));
    expect(grade(input(plan, report + report)).reason).toBe("forged");
  });

  it("scores timeouts, output floods, crashes and missing reports 0 and never as infra errors", () => {
    const plan = planTests(pack);
    const report = pytestReport(allPassed(plan));
    const cases: [Partial<GradeInput>, string | SafeRead, string][] = [
      [{ sandbox: { ...okRun, timedOut: true, exitCode: null, signal: "SIGKILL" } }, report, "timeout"],
      [{ sandbox: { ...okRun, outputCapped: true, exitCode: null, signal: "SIGKILL" } }, report, "crashed"],
      [{ status: { ok: false, reason: "missing" } }, report, "crashed"],
      [{ sandbox: { ...okRun, exitCode: 137 } }, report, "crashed"],
      [{ token: "another-run" }, report, "forged"],
      [{ status: { ok: true, data: Buffer.from("{") } }, report, "crashed"],
      [{ status: status({ exitCode: null, signal: 9 }) }, report, "crashed"],
      [{ status: status({ reportTruncated: true }) }, report, "crashed"],
      [{ status: status({ exitCode: 0 }) }, "", "crashed"],
      [{}, { ok: false, reason: "is a symlink" }, "crashed"],
      [{}, "<testsuites><testcase></testsuites>", "crashed"],
      [{ status: status({ survivors: 1 }) }, report, "forged"],
    ];
    for (const [extra, rep, reason] of cases) {
      const g = grade(input(plan, rep, extra));
      expect(g.passed).toBe(false);
      expect(g.reason).toBe(reason);
    }
  });

  it("keeps what a run stopped at its timeout reported, for observe only: the verdict is timeout", () => {
    const plan = planTests(pack);
    // pytest interrupted in its third test: two cases, and the interrupted one without a name.
    const partial = pytestReport({
      "tests/test_calc.py::test_div": "passed",
      "tests/test_calc.py::test_add": "failed",
    }).replace("</testsuite>", '<testcase time="0.000" /></testsuite>');
    const stopped = input(plan, partial, { status: status({ timedOut: true, exitCode: 2 }), observe: true });
    const g = grade(stopped);
    expect(g).toMatchObject({ passed: false, reason: "timeout", tests: {} });
    expect(g.detail).toBe("the run did not finish within its 8s timeout");
    expect(g.observed).toEqual({
      "tests/test_calc.py::test_div": "passed",
      "tests/test_calc.py::test_add": "failed",
    });
    // Every test passing before the stop is still a timeout, and without observe nothing is kept.
    const all = grade({
      ...stopped,
      reports: [{ ok: true, data: Buffer.from(pytestReport(allPassed(plan))) }],
    });
    expect(all.reason).toBe("timeout");
    expect(grade({ ...stopped, observe: false }).observed).toBeUndefined();
  });

  it("with missingPassToPass ignore, passes a run whose report lacks a passToPass id, never a failToPass one", () => {
    const plan = planTests(pack);
    const outcomes: Record<string, Outcome | { status: Outcome; message: string }> = allPassed(plan);
    delete outcomes["tests/test_calc.py::test_add"];
    const lenient = grade(input(plan, pytestReport(outcomes), { missingPassToPass: "ignore" }));
    expect(lenient).toMatchObject({ passed: true, reason: "passed" });
    expect(lenient.tests["tests/test_calc.py::test_add"]).toBe("missing");
    expect(grade(input(plan, pytestReport(outcomes))).reason).toBe("tests-failed");
    const f2p = { ...allPassed(plan) } as Record<string, Outcome | { status: Outcome; message: string }>;
    delete f2p[pack.spec.failToPass[0]!];
    expect(grade(input(plan, pytestReport(f2p), { missingPassToPass: "ignore" })).reason).toBe(
      "tests-failed",
    );
    const failed = { ...outcomes, "tests/test_calc.py::test_add": "failed" as const };
    expect(grade(input(plan, pytestReport(failed), { missingPassToPass: "ignore" })).reason).toBe(
      "tests-failed",
    );
  });

  it("reports a failed git apply with git's last lines", () => {
    const plan = planTests(pack);
    const apply = {
      exitCode: 1,
      output:
        "Checking patch calc.py...\nerror: patch failed: calc.py:3\nerror: calc.py: patch does not apply\n",
      durationMs: 5,
    };
    const g = grade(input(plan, "", { status: status({}, apply) }));
    expect(g).toMatchObject({ reason: "apply-failed", durationsMs: { apply: 5 } });
    expect(g.detail).toContain("patch does not apply");
  });

  it("keeps test output out of the detail, and hidden-test lines out of the failure messages", () => {
    const plan = planTests(pack);
    const report = pytestReport({
      ...allPassed(plan),
      "tests/test_calc.py::test_div_by_zero": {
        status: "failed",
        message: "ZeroDivisionError: division by zero\n>   HIDDEN-SOURCE-LINE",
      },
    });
    const graded = grade(input(plan, report, { secrets: ["HIDDEN-SOURCE-LINE"] }));
    expect(JSON.stringify(graded)).not.toContain("HIDDEN-SOURCE-LINE");
    expect(graded.detail).not.toContain("ZeroDivisionError");
    expect(graded.failureMessages).toContain("ZeroDivisionError: division by zero");
  });
});
