import type { AdvantageRow } from "../contracts/advantage-row.ts";
import type { Group } from "../contracts/group.ts";
import type { CandidateFacts, StepMetricsInput } from "../metrics/step-metrics.ts";
import { changedLines } from "./patch-lines.ts";

/** What the step metrics need about every candidate of the step's groups (`gagar run` and the service). */
export function candidateFacts(groups: readonly { group: Group; kept: boolean }[]): CandidateFacts[] {
  return groups.flatMap((g) =>
    g.group.candidates.map((c) => ({
      groupKept: g.kept,
      passed: c.passed,
      tokens: c.trajectory?.tokens,
      turns: c.trajectory?.turns,
      patchLines: changedLines(c.patch),
    })),
  );
}

/**
 * A kept group's advantage rows (aligned with its candidates) as the step metrics read them. A pass
 * the veto turned into a failure counts with the failures: its credit is a failure's.
 */
export function advantageFacts(
  group: Group,
  rows: readonly AdvantageRow[],
  vetoed: readonly string[] = [],
): StepMetricsInput["advantages"] {
  return rows.map((row, i) => ({
    row,
    passed: group.candidates[i]!.passed && !vetoed.includes(row.candidateId),
    tokens: group.candidates[i]!.trajectory?.tokens ?? 0,
  }));
}
