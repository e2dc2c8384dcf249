import type { TaskPack } from "../verify/task-pack.ts";
import type { Outcome, Verifier } from "../verify/verifier.ts";
import { type DerivedLists, deriveLists } from "./derive.ts";

/**
 * Whether a task can be scored, found by running it (`gagar tasks check --run`): the reference must
 * pass, the empty patch must fail, every listed test id must show up in the reports, failToPass ids
 * must fail without the fix and passToPass ids pass. A task that breaks any of these would hand out
 * zero (or full) rewards that look like honest verdicts, so the result is kept beside the task
 * (`check.json`, verify/task-check-file.ts) and `gagar verify` refuses to score a task whose check
 * found it invalid.
 */
export interface TaskCheck {
  taskId: string;
  valid: boolean;
  /** Why the task is invalid, one line each. */
  problems: string[];
  /**
   * Why the reference run did not pass, when it did not (e.g. a download the sandbox refused): what
   * its failing test cases reported (a failed `before` hook explains the ids it left missing) and the
   * tail of its output (verify/failure-messages.ts, output-tail.ts).
   */
  referenceFailures?: string;
  referenceOutput?: string;
  /** What running the task gives as failToPass/passToPass (import uses it when an instance has none). */
  derived?: DerivedLists;
}

export async function checkTask(verifier: Verifier, pack: TaskPack): Promise<TaskCheck> {
  const problems: string[] = [];
  const spec = pack.spec;
  if (pack.referencePatch === undefined) {
    problems.push("no reference.patch: nothing shows that the task can be solved");
    return { taskId: spec.id, valid: false, problems };
  }
  let empty: Outcome;
  let reference: Outcome;
  try {
    empty = await verifier.verify(pack, "", { observe: true });
    reference = await verifier.verify(pack, pack.referencePatch, { observe: true });
  } catch (e) {
    problems.push(`the task cannot be run: ${(e as Error).message}`);
    return { taskId: spec.id, valid: false, problems };
  }
  const result: TaskCheck = { taskId: spec.id, valid: true, problems };
  if (!reference.passed) {
    problems.push(
      `the reference patch does not pass: ${reference.reason}${reference.detail ? ` (${reference.detail})` : ""}`,
    );
    if (reference.failureMessages) result.referenceFailures = reference.failureMessages;
    if (reference.outputTail) result.referenceOutput = reference.outputTail;
  }
  if (empty.passed) problems.push("the empty patch passes: the tests do not show the bug");
  const seen = (id: string) =>
    (reference.tests[id] ?? "missing") !== "missing" || (empty.tests[id] ?? "missing") !== "missing";
  for (const id of [...spec.failToPass, ...spec.passToPass])
    if (!seen(id)) problems.push(`test id ${id} never appears in a report (with or without the fix)`);
  for (const id of spec.failToPass)
    if (empty.tests[id] === "passed") problems.push(`failToPass id ${id} already passes without the fix`);
  for (const id of spec.passToPass)
    if (seen(id) && empty.tests[id] !== "passed")
      problems.push(`passToPass id ${id} does not pass without the fix (${empty.tests[id] ?? "missing"})`);
  if (empty.observed && reference.observed) result.derived = deriveLists(empty.observed, reference.observed);
  result.valid = problems.length === 0;
  return result;
}

/** A check's problems and the reference run's diagnostics, as the lines `tasks check` and `tasks import --check` print. */
export function describeCheck(check: TaskCheck): string {
  const lines = [`✗ ${check.taskId}: invalid`, ...check.problems.map((p) => `    - ${p}`)];
  if (check.referenceFailures)
    lines.push("    the reference run's failing tests:", indent(check.referenceFailures, "      "));
  if (check.referenceOutput)
    lines.push("    the reference run's output (last lines):", indent(check.referenceOutput, "      "));
  return `${lines.join("\n")}\n`;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}
