import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { BATCH_COLUMNS, checkBatchRows } from "./batch-row.ts";
import { sampleRows } from "./testing/rows.ts";

describe("BatchRow", () => {
  it("has the columns trainers read, in a fixed order", () => {
    expect(BATCH_COLUMNS).toEqual([
      "runId",
      "step",
      "taskId",
      "groupId",
      "candidateId",
      "passed",
      "reward",
      "baseAdvantage",
      "advantage",
      "weight",
      "tier",
      "tokens",
      "turns",
      "finishReason",
      "messagesRef",
      "tokensRef",
      "patchSha256",
    ]);
  });

  it("accepts valid rows unchanged", () => {
    expect(checkBatchRows(sampleRows())).toEqual(sampleRows());
  });

  it("names the row, candidate and field of an invalid row", () => {
    const rows = sampleRows();
    rows[1] = { ...rows[1]!, advantage: Number.NaN };
    expect(() => checkBatchRows(rows)).toThrow(InvariantError);
    expect(() => checkBatchRows(rows)).toThrow(
      /^batch row 1 \(group run-1\/s3\/calc-div-zero\/r0, candidate r2\): advantage:/,
    );
  });

  it("rejects unknown fields, fractional counts and malformed hashes", () => {
    const [row] = sampleRows();
    expect(() => checkBatchRows([{ ...row, extra: 1 }])).toThrow(/extra/);
    expect(() => checkBatchRows([{ ...row, tokens: 1.5 }])).toThrow(/tokens/);
    expect(() => checkBatchRows([{ ...row, patchSha256: "ABC" }])).toThrow(/patchSha256/);
  });
});
