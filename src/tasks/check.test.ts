import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TestStatus } from "../contracts/verdict.ts";
import type { Outcome } from "../verify/verifier.ts";
import { type CheckedSpec, judgeTask } from "./check.ts";
import { deriveLists } from "./derive.ts";

/** A run as the verifier returns it: graded against `lists` (observe on). */
function run(
  observed: Record<string, TestStatus>,
  lists: readonly string[],
  reason: Outcome["reason"] = "passed",
): Outcome {
  const tests = Object.fromEntries(lists.map((id) => [id, observed[id] ?? "missing"]));
  const allPass = Object.values(tests).every((s) => s === "passed");
  const graded = reason === "passed" && !allPass ? "tests-failed" : reason;
  return {
    passed: graded === "passed",
    reason: graded,
    tests: reason === "timeout" ? {} : tests,
    durationsMs: {},
    findings: [],
    observed,
  };
}

const spec = (failToPass: string[], passToPass: string[], extra: Partial<CheckedSpec> = {}): CheckedSpec => ({
  id: "t",
  failToPass,
  passToPass,
  missingPassToPass: "fail",
  timeoutSec: 60,
  ...extra,
});

describe("judgeTask", () => {
  it("finds a task valid when the reference passes, the empty patch fails and every id ran", () => {
    const s = spec(["a"], ["b"]);
    const ids = ["a", "b"];
    const check = judgeTask(s, {
      empty: run({ a: "failed", b: "passed" }, ids),
      reference: run({ a: "passed", b: "passed" }, ids),
    });
    expect(check).toEqual({ taskId: "t", valid: true, problems: [], notes: [] });
  });

  it("says what is wrong: a reference that fails, an empty patch that passes, ids that never run", () => {
    const s = spec(["a", "gone"], ["b"]);
    const ids = ["a", "gone", "b"];
    const check = judgeTask(s, {
      empty: run({ a: "passed", b: "failed" }, ids),
      reference: run({ a: "failed", b: "passed" }, ids),
    });
    expect(check.valid).toBe(false);
    expect(check.problems).toEqual([
      "the reference patch does not pass: tests-failed",
      "test id gone never appears in a report (with or without the fix)",
      "failToPass id a already passes without the fix",
      "passToPass id b does not pass without the fix (failed)",
    ]);
  });

  it("with missingPassToPass ignore, a passToPass id that never runs is a note, not a fault", () => {
    const s = spec(["a"], ["b", "gone"], { missingPassToPass: "ignore" });
    const ids = ["a", "b", "gone"];
    const mayMiss = (o: Record<string, TestStatus>) => run(o, ["a", "b"]);
    const check = judgeTask(s, {
      empty: mayMiss({ a: "failed", b: "passed" }),
      reference: mayMiss({ a: "passed", b: "passed" }),
    });
    expect(check.valid).toBe(true);
    expect(check.notes).toEqual([
      'test id gone never appears in a report (with or without the fix); missingPassToPass is "ignore", so it does not count',
    ]);
    expect(
      judgeTask(
        { ...s, missingPassToPass: "fail" },
        { empty: run({ a: "failed", b: "passed" }, ids), reference: run({ a: "passed", b: "passed" }, ids) },
      ).valid,
    ).toBe(false);
  });

  it("after a base run that timed out, does not call the passToPass ids it never reached failing", () => {
    const s = spec(["a"], ["b", "c"]);
    const check = judgeTask(s, {
      empty: run({ b: "passed" }, ["a", "b", "c"], "timeout"),
      reference: run({ a: "passed", b: "passed", c: "passed" }, ["a", "b", "c"]),
    });
    expect(check.valid).toBe(true);
    expect(check.notes).toHaveLength(1);
    expect(check.notes[0]).toMatch(
      /^the run without the fix did not finish within the task's 60s timeout \(1 test reported before it was stopped\): .* needs a per-test timeout .*; 1 passToPass ids it never reached were not checked$/,
    );
  });

  it("judges lists derived from the same two runs (graded without ids) as valid, whatever the runs reported", () => {
    const status = fc.constantFrom<TestStatus>("passed", "failed", "error", "skipped");
    const runOf = fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e"), status);
    fc.assert(
      fc.property(runOf, runOf, (before, after) => {
        const lists = deriveLists(before, after);
        fc.pre(lists.failToPass.length > 0);
        const check = judgeTask(spec(lists.failToPass, lists.passToPass), {
          empty: run(before, []),
          reference: run(after, []),
        });
        expect(check.problems).toEqual([]);
      }),
    );
  });
});
