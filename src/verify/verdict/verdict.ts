import type { Finding } from "../../contracts/finding.ts";
import type { MissingPassToPass } from "../../contracts/task-spec.ts";
import type { TestStatus, VerdictReason } from "../../contracts/verdict.ts";
import type { RunResult } from "../../sandbox/types.ts";
import { parseGuardLog } from "../guards/guard-log.ts";
import type { Secret } from "../run/output-tail.ts";
import type { SafeRead } from "../run/safe-read.ts";
import type { TestPlan } from "../runners/types.ts";
import { checkRunCanaries } from "./canary-checks.ts";
import { failureMessages } from "./failure-messages.ts";
import { type JunitCase, parseJunit, ReportError } from "./junit-report.ts";
import { parseStatus, type RunnerStatus } from "./runner-status.ts";
import { type CaseResult, indexCases, statusOf } from "./test-ids.ts";

/**
 * Turns what a sandboxed verification left behind into a verdict. Pure: no I/O.
 *
 * Order of the checks (first match wins):
 * 1. wall timeout → `timeout`; output over the cap → `crashed` (the sandbox killed the run);
 * 2. the runner (sandbox-runner.py) did not exit 0, or left no valid status.json → `crashed`; a
 *    status.json without this run's secret token was written by someone else → `forged`;
 * 3. `git apply` failed → `apply-failed`;
 * 4. per test run: killed by a signal, report missing, empty, over the cap or not one well-formed
 *    JUnit document → `crashed`; a second document in the report channel → `forged`;
 * 5. canaries: a must-fail canary that passed, failed with the wrong message, or a must-pass canary
 *    that did not pass → `forged` (unless it was skipped with every other test of its module or folder:
 *    canary-checks.ts); a runner exiting 0 although a canary failed → `forged`;
 * 6. every failToPass and passToPass id must be present and passed (skipped, xfail, error and missing
 *    all fail; a missing passToPass id does not when the task says `missingPassToPass: "ignore"`) →
 *    `passed` or `tests-failed`. A report without its canaries is `forged` when it claims
 *    success and `tests-failed` otherwise (a collection error stops pytest before the canaries run);
 * 7. guards (guards/): a violation the guard inside the test process reported (code under test read a
 *    hidden test, replaced a harness or assertion function, ran the tests again, shadowed a module)
 *    turns a completed run (`passed`, `tests-failed`) into `forged`, with the violations as findings;
 *    what a guard saw that has an honest reading too (an `ambiguous` record) is a major finding only.
 * Verdict details name test ids and statuses only, never test output: hidden-test source shows up in
 * tracebacks and must not reach anything the policy can read (E5). What the failing cases reported
 * goes to `failureMessages` instead, with the lines quoting hidden tests removed (failure-messages.ts).
 */

export type { RunnerStatus } from "./runner-status.ts";

export interface GradeInput {
  failToPass: readonly string[];
  passToPass: readonly string[];
  /** A passToPass id no report mentions fails the run (`fail`, the default) or does not count (`ignore`). */
  missingPassToPass?: MissingPassToPass;
  plan: TestPlan;
  timeoutSec: number;
  /** The per-run secret the runner must echo in status.json. */
  token: string;
  sandbox: RunResult;
  /** status.json as read from /out (safeReadFile). */
  status: SafeRead;
  /** report-<i>.xml of each planned run. */
  reports: SafeRead[];
  /** guard-<i>.log of each planned run that had guards (guards/guard-setup.ts); absent without. */
  guards?: SafeRead[];
  /** Also return every reported test (not only the task's ids) in `observed`. */
  observe?: boolean;
  /**
   * What the failure messages must not show: lines of the hidden tests (output-tail.ts `secretLines`)
   * and the names of the run's canaries (runners/canary.ts `canaryNames`).
   */
  secrets: readonly Secret[];
}

export interface Graded {
  passed: boolean;
  reason: VerdictReason;
  detail?: string;
  tests: Record<string, TestStatus>;
  durationsMs: Record<string, number>;
  findings: Finding[];
  /**
   * Every test the runs reported (canaries left out), by its id in the runner's id space, worst status
   * first; only when asked for (`observe`): import derives FAIL_TO_PASS/PASS_TO_PASS from it.
   */
  observed?: Record<string, TestStatus>;
  /**
   * Task ids that matched more than one reported testcase, and how many (all of them count, the worst
   * status wins): a mocha full title two tests share, say. Only when asked for (`observe`).
   */
  idMatches?: Record<string, number>;
  /** Diagnostics: the tail of the run's output (output-tail.ts), filled in by the verifier. */
  outputTail?: string;
  /** Diagnostics when tests failed: what the failing cases reported (failure-messages.ts). */
  failureMessages?: string;
}

export function grade(input: GradeInput): Graded {
  const graded = gradeRuns(input);
  const logs = (input.guards ?? []).flatMap((read) =>
    read.ok ? [parseGuardLog(read.data.toString("utf8"))] : [],
  );
  const violations = logs.flatMap((log) => log.violations);
  const ambiguous = logs.flatMap((log) => log.ambiguous);
  if (violations.length === 0)
    return ambiguous.length ? { ...graded, findings: [...graded.findings, ...ambiguous] } : graded;
  const findings = [...graded.findings, ...violations, ...ambiguous];
  if (graded.reason !== "passed" && graded.reason !== "tests-failed") return { ...graded, findings };
  const first = violations[0]!;
  const detail = `the guard in the test process saw ${first.kind}: ${first.message}${first.file ? ` (${first.file}${first.line ? `:${first.line}` : ""})` : ""}`;
  return { ...graded, passed: false, reason: "forged", detail, findings };
}

/** Checks 1–6 of `grade`. */
function gradeRuns(input: GradeInput): Graded {
  const started = checkRunner(input);
  if ("reason" in started) return started;
  const { status, durationsMs } = started;
  const observed: Record<string, TestStatus> | undefined = input.observe ? {} : undefined;
  const reports: Reports = { indexes: [], parsed: [], canariesMissing: 0 };
  for (let i = 0; i < status.runs.length; i++) {
    const failed = readReport(input, status.runs[i]!, i, durationsMs, observed, reports);
    if (failed) return failed;
  }
  return judgeTests(input, reports, durationsMs, observed);
}

type RanRun = RunnerStatus["runs"][number];

/** What the test runs reported: each run's cases and their index by key, and the canaries no run reported. */
interface Reports {
  indexes: Map<string, CaseResult>[];
  parsed: JunitCase[][];
  canariesMissing: number;
}

/** Checks 1–3: the sandbox run, the runner's status.json, the patch's apply, the number of test runs. */
function checkRunner(
  input: GradeInput,
): Graded | { status: RunnerStatus; durationsMs: Record<string, number> } {
  const { sandbox } = input;
  if (sandbox.timedOut)
    return fail("timeout", `the run did not finish within its ${input.timeoutSec}s timeout`);
  if (sandbox.outputCapped) return fail("crashed", "the run printed more than the output cap and was killed");
  if (sandbox.exitCode !== 0) {
    const how = sandbox.exitCode === null ? `signal ${sandbox.signal}` : `exit ${sandbox.exitCode}`;
    return fail("crashed", `the verifier's runner did not finish (${how}); something in the run killed it`);
  }
  const status = parseStatus(input.status);
  if (typeof status === "string") return fail("crashed", `the runner finished but its status.json ${status}`);
  if (status.token !== input.token) {
    return forged(
      [],
      "status.json does not carry this run's token: it was not written by the verifier's runner",
      {},
    );
  }
  const durationsMs: Record<string, number> = {};
  if (status.apply) {
    durationsMs.apply = status.apply.durationMs;
    if (status.apply.exitCode !== 0) {
      const detail = `git apply failed (exit ${status.apply.exitCode}): ${lastLines(status.apply.output, 6)}`;
      return fail("apply-failed", detail, durationsMs);
    }
  }
  // The runner stops after a run it had to stop at the timeout.
  const stopped = status.runs.at(-1)?.timedOut === true;
  if (
    status.runs.length !== input.plan.runs.length &&
    !(stopped && status.runs.length < input.plan.runs.length)
  ) {
    return fail(
      "crashed",
      `the runner finished ${status.runs.length} of ${input.plan.runs.length} test runs`,
      durationsMs,
    );
  }
  durationsMs.tests = status.runs.reduce((n, r) => n + r.durationMs, 0);
  return { status, durationsMs };
}

/**
 * Checks 4–5 for test run `i`: how it ended, its report, its canaries. Adds what it reported to
 * `reports` (and `observed`); returns the verdict when the run decides it, undefined otherwise.
 */
function readReport(
  input: GradeInput,
  ran: RanRun,
  i: number,
  durationsMs: Record<string, number>,
  observed: Record<string, TestStatus> | undefined,
  reports: Reports,
): Graded | undefined {
  const run = input.plan.runs[i]!;
  const label = input.plan.runs.length > 1 ? ` for ${run.label}` : "";
  if (ran.timedOut) {
    // Never a pass; what the run reported before it was stopped is kept for `observe` (tasks import
    // derives from the tests a hanging base run did get through).
    const timedOut = fail(
      "timeout",
      `the run did not finish within its ${input.timeoutSec}s timeout`,
      durationsMs,
    );
    if (observed) {
      addObserved(observed, run, partialCases(input.reports[i]));
      timedOut.observed = observed;
    }
    return timedOut;
  }
  if (ran.channelHeld || ran.survivors > 0) {
    return forged(
      [],
      `a process outlived the test run${label} and kept its report channel open`,
      durationsMs,
    );
  }
  if (ran.exitCode === null)
    return fail("crashed", `the test runner${label} was killed by signal ${ran.signal}`, durationsMs);
  if (ran.reportTruncated) return fail("crashed", `the report${label} exceeded the size cap`, durationsMs);
  const read = input.reports[i];
  if (!read?.ok)
    return fail(
      "crashed",
      `the runner's copy of the report${label} is ${read ? read.reason : "missing"}`,
      durationsMs,
    );
  if (read.data.length === 0) {
    return fail(
      "crashed",
      `the test runner${label} exited ${ran.exitCode} without writing a report`,
      durationsMs,
    );
  }
  let cases: JunitCase[];
  try {
    cases = parseJunit(read.data.toString("utf8"));
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    if (e.injected)
      return forged(
        [],
        `the report${label} was written to by something besides the runner (${e.message})`,
        durationsMs,
      );
    return fail("crashed", `the report${label} is unusable: ${e.message}`, durationsMs);
  }
  reports.parsed.push(cases);
  const index = indexCases(cases, (c) => run.keysOf(c));
  reports.indexes.push(index);
  if (observed) addObserved(observed, run, cases);
  return checkCanaries(run, ran, index, label, durationsMs, reports, cases);
}

/** Check 5 for one run (canary-checks.ts): a canary that misbehaved is forgery; the ones it did not report are counted. */
function checkCanaries(
  run: TestPlan["runs"][number],
  ran: RanRun,
  index: Map<string, CaseResult>,
  label: string,
  durationsMs: Record<string, number>,
  reports: Reports,
  cases: readonly JunitCase[],
): Graded | undefined {
  const checked = checkRunCanaries(run, ran.exitCode, index, cases, label);
  reports.canariesMissing += checked.missing;
  return checked.forged === undefined ? undefined : forged([], checked.forged, durationsMs);
}

/** Check 6: every failToPass and passToPass id present and passed, and the canaries there. */
function judgeTests(
  input: GradeInput,
  reports: Reports,
  durationsMs: Record<string, number>,
  observed: Record<string, TestStatus> | undefined,
): Graded {
  const tests: Record<string, TestStatus> = {};
  const bad: string[] = [];
  const matches: Record<string, number> = {};
  const mayBeMissing = new Set(input.missingPassToPass === "ignore" ? input.passToPass : []);
  for (const id of [...input.failToPass, ...input.passToPass]) {
    const where = input.plan.locate(id);
    const result = where ? reports.indexes[where.run]?.get(where.key) : undefined;
    const status = statusOf(result);
    tests[id] = status;
    if (result) durationsMs[id] = Math.round(result.timeSec * 1000);
    if (result && result.count > 1) matches[id] = result.count;
    if (status !== "passed" && !(status === "missing" && mayBeMissing.has(id))) bad.push(`${id} ${status}`);
  }
  const seen = observed && Object.keys(matches).length ? { idMatches: matches } : {};
  const messages = (): { failureMessages?: string } => {
    const text = failureMessages({
      plan: input.plan,
      cases: reports.parsed,
      ids: [...input.failToPass, ...input.passToPass],
      secrets: input.secrets,
    });
    return text ? { failureMessages: text } : {};
  };
  if (reports.canariesMissing > 0 && bad.length === 0)
    return forged([], "the report claims every test passed but lacks the canary tests", durationsMs, tests);
  if (bad.length) {
    const detail =
      reports.canariesMissing > 0 ? `${summarize(bad)} (canaries did not run either)` : summarize(bad);
    return {
      passed: false,
      reason: "tests-failed",
      detail,
      tests,
      durationsMs,
      findings: [],
      ...(observed && { observed }),
      ...seen,
      ...messages(),
    };
  }
  return {
    passed: true,
    reason: "passed",
    tests,
    durationsMs,
    findings: [],
    ...(observed && { observed }),
    ...seen,
  };
}

/** Adds a run's reported tests (canaries left out) to `observed`, by id, worst status first. */
function addObserved(
  observed: Record<string, TestStatus>,
  run: TestPlan["runs"][number],
  cases: readonly JunitCase[],
): void {
  const canaryKeys = new Set(run.canaries.map((c) => c.key));
  const byId = indexCases(
    cases.filter((c) => !run.keysOf(c).some((k) => canaryKeys.has(k))),
    (c) => [run.idOf(c)],
  );
  for (const [id, result] of byId) observed[id] = worse(observed[id], result.status);
}

/** The cases of a report cut short (a run stopped at its timeout), or none when it is not one whole document. */
function partialCases(read: SafeRead | undefined): JunitCase[] {
  if (!read?.ok || read.data.length === 0) return [];
  try {
    // pytest writes the test it was interrupted in as a testcase without a name.
    return parseJunit(read.data.toString("utf8")).filter((c) => c.name || c.classname);
  } catch (e) {
    if (e instanceof ReportError) return [];
    throw e;
  }
}

function fail(reason: VerdictReason, detail: string, durationsMs: Record<string, number> = {}): Graded {
  return { passed: false, reason, detail, tests: {}, durationsMs, findings: [] };
}

function forged(
  findings: Finding[],
  detail: string,
  durationsMs: Record<string, number>,
  tests: Record<string, TestStatus> = {},
): Graded {
  const finding: Finding = { kind: "result-forgery", severity: "critical", message: detail };
  return { passed: false, reason: "forged", detail, tests, durationsMs, findings: [...findings, finding] };
}

function summarize(bad: string[]): string {
  const shown = bad.slice(0, 5).join("; ");
  return bad.length > 5 ? `${shown}; and ${bad.length - 5} more` : shown;
}

function lastLines(text: string, n: number): string {
  return text.trim().split("\n").slice(-n).join(" | ");
}

const RANK: Record<TestStatus, number> = { missing: 5, error: 4, failed: 3, xfail: 2, skipped: 1, passed: 0 };

function worse(a: TestStatus | undefined, b: TestStatus): TestStatus {
  return a !== undefined && RANK[a] >= RANK[b] ? a : b;
}
