import type { MissingPassToPass } from "../contracts/task-spec.ts";
import type { TestStatus } from "../contracts/verdict.ts";
import { isUserError } from "../errors.ts";
import { EnvironmentError } from "../verify/environments/types.ts";
import type { TaskPack } from "../verify/pack/task-pack.ts";
import type { Outcome, Verifier } from "../verify/verifier.ts";

/**
 * Whether a task can be scored, found by running it (`gagar tasks check --run`): the reference must
 * pass, the empty patch must fail, every listed test id must show up in the reports, failToPass ids
 * must fail without the fix and passToPass ids pass. A task that breaks any of these would hand out
 * zero (or full) rewards that look like honest verdicts, so the result is kept beside the task
 * (`check.json`, verify/pack/task-check-file.ts) and `gagar verify` refuses to score a task whose check
 * found it invalid.
 *
 * Two runs answer everything (`runTask`): the empty patch and the reference, each observing every
 * test it reported; `judgeTask` reads them (pure), and `gagar tasks import` derives missing lists
 * from the same two runs before judging them, so an import with `--check` runs a task twice, not four
 * times.
 */
export interface TaskCheck {
  taskId: string;
  valid: boolean;
  /** Why the task is invalid, one line each. */
  problems: string[];
  /** What is worth knowing but does not make the task invalid (an id that matched several tests, a run that timed out). */
  notes: string[];
  /**
   * Why the reference run did not pass, when it did not (e.g. a download the sandbox refused): what
   * its failing test cases reported (a failed `before` hook explains the ids it left missing) and the
   * tail of its output (verify/verdict/failure-messages.ts, output-tail.ts).
   */
  referenceFailures?: string;
  referenceOutput?: string;
  /** The tail of a failing set-up command's output (npm's own error), when the environment could not be built. */
  setupOutput?: string;
}

/** The two runs a check reads. */
export interface TaskRuns {
  /** The base with the hidden tests (the empty patch). */
  empty: Outcome;
  reference: Outcome;
}

/** What `judgeTask` needs of a task: its id and lists. */
export interface CheckedSpec {
  id: string;
  failToPass: readonly string[];
  passToPass: readonly string[];
  missingPassToPass: MissingPassToPass;
  timeoutSec: number;
}

export type RunTaskResult = { ok: true; runs: TaskRuns } | { ok: false; check: TaskCheck; cause: unknown };

/**
 * Runs the empty patch and the reference once each, observing every reported test. A task that cannot
 * be run at all (no reference, an environment that does not build) comes back as an invalid check;
 * a SandboxError (the verifier's fault, not the task's) is thrown.
 */
export async function runTask(verifier: Verifier, pack: TaskPack): Promise<RunTaskResult> {
  const id = pack.spec.id;
  if (pack.referencePatch === undefined) {
    const problem = "no reference.patch: nothing shows that the task can be solved";
    return { ok: false, check: invalid(id, [problem]), cause: undefined };
  }
  try {
    const empty = await verifier.verify(pack, "", { observe: true });
    const reference = await verifier.verify(pack, pack.referencePatch, { observe: true });
    return { ok: true, runs: { empty, reference } };
  } catch (e) {
    // A task pack's own fault (a set-up command that fails, an image that is not there); a
    // SandboxError is the verifier's and stops the caller.
    if (!isUserError(e)) throw e;
    const check = invalid(id, [`the task cannot be run: ${e.message}`]);
    if (e instanceof EnvironmentError && e.outputTail) check.setupOutput = e.outputTail;
    return { ok: false, check, cause: e };
  }
}

export async function checkTask(verifier: Verifier, pack: TaskPack): Promise<TaskCheck> {
  const ran = await runTask(verifier, pack);
  return ran.ok ? judgeTask(pack.spec, ran.runs) : ran.check;
}

/**
 * Reads the two runs against the task's lists. The lists may be the ones the runs were graded with,
 * or lists derived from the runs afterwards (runs graded with no ids): a status is the graded one
 * where there is one, else the observed one.
 */
export function judgeTask(spec: CheckedSpec, runs: TaskRuns): TaskCheck {
  const { empty, reference } = runs;
  const problems: string[] = [];
  const notes: string[] = [];
  const result: TaskCheck = { taskId: spec.id, valid: true, problems, notes };
  const ignoreMissing = new Set(spec.missingPassToPass === "ignore" ? spec.passToPass : []);
  const lists = [...spec.failToPass, ...spec.passToPass];
  const passes = (run: Outcome) =>
    run.reason === "passed" &&
    lists.every((id) => {
      const status = statusIn(run, id);
      return status === "passed" || (status === "missing" && ignoreMissing.has(id));
    });
  if (!passes(reference)) {
    const failing = lists.filter((id) => statusIn(reference, id) !== "passed" && !ignoreMissing.has(id));
    const why =
      reference.reason === "passed"
        ? `tests-failed (${failing.map((id) => `${id} ${statusIn(reference, id)}`).join("; ")})`
        : `${reference.reason}${reference.detail ? ` (${reference.detail})` : ""}`;
    problems.push(`the reference patch does not pass: ${why}`);
    if (reference.failureMessages) result.referenceFailures = reference.failureMessages;
    if (reference.outputTail) result.referenceOutput = reference.outputTail;
  }
  if (passes(empty)) problems.push("the empty patch passes: the tests do not show the bug");
  const emptyFinished = finished(empty);
  const seen = (id: string) => statusIn(reference, id) !== "missing" || statusIn(empty, id) !== "missing";
  for (const id of lists) {
    if (seen(id)) continue;
    const line = `test id ${id} never appears in a report (with or without the fix)`;
    if (ignoreMissing.has(id)) notes.push(`${line}; missingPassToPass is "ignore", so it does not count`);
    else problems.push(line);
  }
  for (const id of spec.failToPass)
    if (statusIn(empty, id) === "passed") problems.push(`failToPass id ${id} already passes without the fix`);
  const unchecked: string[] = [];
  for (const id of spec.passToPass) {
    const before = statusIn(empty, id);
    if (!seen(id) || before === "passed") continue;
    if (before === "missing" && !emptyFinished) unchecked.push(id);
    else problems.push(`passToPass id ${id} does not pass without the fix (${before})`);
  }
  if (!emptyFinished)
    notes.push(
      `${unfinished(empty, spec.timeoutSec, "without the fix")}${unchecked.length ? `; ${unchecked.length} passToPass ids it never reached were not checked` : ""}`,
    );
  if (!finished(reference) && reference.reason === "timeout")
    notes.push(unfinished(reference, spec.timeoutSec, "with the reference"));
  for (const [id, n] of Object.entries({ ...empty.idMatches, ...reference.idMatches }))
    if (lists.includes(id))
      notes.push(`test id ${id} matched ${n} reported tests: every one of them must pass`);
  result.valid = problems.length === 0;
  return result;
}

/** The status of task id `id` in a run: as graded, else as observed (derived lists), else missing. */
export function statusIn(run: Outcome, id: string): TestStatus {
  return run.tests[id] ?? run.observed?.[id] ?? "missing";
}

/** Whether a run got to the end of its tests (its statuses say everything about the base). */
export function finished(run: Outcome): boolean {
  return run.reason !== "timeout" && run.reason !== "crashed";
}

/** Why a run that did not finish matters, and what to do about it. */
export function unfinished(run: Outcome, timeoutSec: number, what: string): string {
  if (run.reason === "crashed") return `the run ${what} crashed (${run.detail ?? "no detail"})`;
  const reported = Object.keys(run.observed ?? {}).length;
  return `the run ${what} did not finish within the task's ${timeoutSec}s timeout (${reported} ${reported === 1 ? "test" : "tests"} reported before it was stopped): a test that hangs (an endless loop, a server or timer left open) needs a per-test timeout in the test command (pytest-timeout's --timeout=N, mocha's --timeout and --exit, jest's --testTimeout and --forceExit) so that it fails instead of stopping the run`;
}

/** A check's problems, notes and diagnostics, as the lines `tasks check` and `tasks import` print. */
export function describeCheck(check: TaskCheck): string {
  const lines = [
    `✗ ${check.taskId}: invalid`,
    ...check.problems.map((p) => `    - ${p}`),
    ...check.notes.map((n) => `    note: ${n}`),
  ];
  if (check.setupOutput)
    lines.push(
      "    the set-up command's output (its first and last lines when long):",
      indent(check.setupOutput, "      "),
    );
  if (check.referenceFailures)
    lines.push("    the reference run's failing tests:", indent(check.referenceFailures, "      "));
  if (check.referenceOutput)
    lines.push("    the reference run's output (last lines):", indent(check.referenceOutput, "      "));
  return `${lines.join("\n")}\n`;
}

/** Notes of a valid check, as printed. */
export function describeNotes(check: TaskCheck): string {
  return check.notes.map((n) => `  ${check.taskId}: note: ${n}\n`).join("");
}

function invalid(taskId: string, problems: string[]): TaskCheck {
  return { taskId, valid: false, problems, notes: [] };
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}
