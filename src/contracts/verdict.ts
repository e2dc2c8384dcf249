import { z } from "zod";
import { Finding } from "./finding.ts";
import { SchemaVersion } from "./group.ts";

/** Why a rollout got the reward it got. Only `infra-error` is the verifier's fault. */
export const VerdictReason = z.enum([
  "passed",
  "tests-failed",
  "apply-failed",
  "patch-rejected",
  "timeout",
  "crashed",
  "forged",
  "infra-error",
]);
export type VerdictReason = z.infer<typeof VerdictReason>;

export const TestStatus = z.enum(["passed", "failed", "error", "skipped", "xfail", "missing"]);
export type TestStatus = z.infer<typeof TestStatus>;

/** The verifier's record for one rollout (one JSONL line of `gagar verify --out`). */
export const Verdict = z.looseObject({
  schemaVersion: SchemaVersion,
  rolloutId: z.string(),
  taskId: z.string(),
  groupId: z.string().optional(),
  passed: z.boolean(),
  reason: VerdictReason,
  /** Human-readable detail for the reason (which test failed, which path was rejected…). */
  detail: z.string().optional(),
  tests: z.record(z.string(), TestStatus).default({}),
  durationsMs: z.record(z.string(), z.number().nonnegative()).default({}),
  findings: z.array(Finding).default([]),
  /**
   * The last lines the test run printed (capped; lines quoting hidden tests or naming canaries
   * removed): why a candidate failed, for the operator. Never shown to the policy or the graders.
   */
  outputTail: z.string().optional(),
  /**
   * When tests failed: what the failing and erroring test cases reported (capped; the task's ids
   * first, canaries left out, lines quoting hidden tests or naming canaries removed), for runners
   * that print nothing of it to the output. For the operator, like `outputTail`.
   */
  failureMessages: z.string().optional(),
});
export type Verdict = z.output<typeof Verdict>;
