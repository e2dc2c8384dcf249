import type { Verdict, VerdictReason } from "../../contracts/verdict.ts";
import { VerdictReason as Reasons } from "../../contracts/verdict.ts";

/**
 * The end-of-run summary of `gagar verify`: rollouts per verdict reason, with the share of each.
 * A rising share of timeout/crashed/forged/patch-rejected across policy checkpoints is a reward-hacking
 * signal (security.md §5.6), so every reason is always listed, zeros included.
 */
export function reasonCounts(verdicts: readonly Verdict[]): Map<VerdictReason, number> {
  const counts = new Map<VerdictReason, number>(Reasons.options.map((r) => [r, 0]));
  for (const v of verdicts) counts.set(v.reason, (counts.get(v.reason) ?? 0) + 1);
  return counts;
}

export function summaryRows(verdicts: readonly Verdict[]): (string | number)[][] {
  const total = verdicts.length;
  return [...reasonCounts(verdicts)].map(([reason, n]) => [
    reason,
    n,
    total ? `${((100 * n) / total).toFixed(1)}%` : "-",
  ]);
}
