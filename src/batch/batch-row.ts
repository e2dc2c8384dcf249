import { z } from "zod";
import { InvariantError } from "../errors.ts";

/**
 * One trajectory of a training batch: everything a trainer needs to weight it, plus the keys to
 * find its transcript and tokens (`messagesRef`, `tokensRef`) and to join it with gagar's store (`groupId`, `candidateId`,
 * `patchSha256`). `advantage` is the GAGAR advantage (`baseAdvantage · weight`), to be broadcast
 * over the trajectory's response tokens; `baseAdvantage` is what plain GRPO (or the configured
 * estimator) would have given. `passed` is the test verdict; `reward` is what the advantages were
 * computed from (it differs when a veto turned a pass with a critical finding into a failure).
 * `tier` is the 0-based grader tier of a ranked passing candidate, null otherwise.
 */
export const BatchRow = z.strictObject({
  runId: z.string().min(1),
  step: z.number().int().nonnegative(),
  taskId: z.string().min(1),
  groupId: z.string().min(1),
  candidateId: z.string().min(1),
  passed: z.boolean(),
  reward: z.number().finite(),
  baseAdvantage: z.number().finite(),
  advantage: z.number().finite(),
  weight: z.number().finite(),
  tier: z.number().int().nonnegative().nullable(),
  /** Tokens of the whole trajectory, as the rollout source counted them. */
  tokens: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  /**
   * Why the rollout ended, as its source recorded it (`submit`, `stop`, `max_turns`, `length`,
   * `time_limit`, `workspace_full`); null when it recorded none. Trainers that mask truncated
   * trajectories (DAPO's overlong filtering) read it here.
   */
  finishReason: z.string().min(1).nullable(),
  /** Where the full transcript is (a path or a store key); null when it was not kept. */
  messagesRef: z.string().min(1).nullable(),
  /** Where the sampled tokens and logprobs of each assistant turn are; null when the server reported none. */
  tokensRef: z.string().min(1).nullable(),
  patchSha256: z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits"),
});
export type BatchRow = z.infer<typeof BatchRow>;

/** The column order of both export formats. */
export const BATCH_COLUMNS = Object.keys(BatchRow.shape) as (keyof BatchRow)[];

/**
 * Validates rows before anything is written. Rows come from the pipeline, not the user, so a bad
 * one is a gagar bug: the error names the row, its candidate and the field.
 */
export function checkBatchRows(rows: readonly unknown[]): BatchRow[] {
  return rows.map((row, i) => {
    const result = BatchRow.safeParse(row);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const field = issue.path.map(String).join(".") || "(row)";
    const r = row as Partial<BatchRow> | null;
    throw new InvariantError(
      `batch row ${i} (group ${r?.groupId ?? "?"}, candidate ${r?.candidateId ?? "?"}): ${field}: ${issue.message}`,
    );
  });
}
