import { patchSha256 } from "../../store/patch-sha.ts";
import type { BatchRow } from "../batch-row.ts";

/** GRPO advantages of rewards [1, 1, 0] (unbiased std): arbitrary doubles, to test exact round trips. */
const PASS = 1 / Math.sqrt(3);
const FAIL = -2 / Math.sqrt(3);

/** A realistic three-candidate group: a clean pass (tier 0), a churny pass (tier 1), a fail. */
export function sampleRows(): BatchRow[] {
  const base = { runId: "run-1", step: 3, taskId: "calc-div-zero", groupId: "run-1/s3/calc-div-zero/r0" };
  return [
    {
      ...base,
      candidateId: "r1",
      passed: true,
      reward: 1,
      baseAdvantage: PASS,
      advantage: PASS * (4 / 3),
      weight: 4 / 3,
      tier: 0,
      tokens: 5230,
      turns: 12,
      finishReason: "submit",
      messagesRef: "transcripts/run-1/r1.json",
      tokensRef: "tokens/run-1.jsonl#r1",
      patchSha256: patchSha256("clean"),
    },
    {
      ...base,
      candidateId: "r2",
      passed: true,
      reward: 1,
      baseAdvantage: PASS,
      advantage: PASS * (2 / 3),
      weight: 2 / 3,
      tier: 1,
      tokens: 9120,
      turns: 21,
      finishReason: null,
      messagesRef: null,
      tokensRef: null,
      patchSha256: patchSha256("churn"),
    },
    {
      ...base,
      candidateId: "r3",
      passed: false,
      reward: 0,
      baseAdvantage: FAIL,
      advantage: FAIL,
      weight: 1,
      tier: null,
      tokens: 3001,
      turns: 30,
      finishReason: "time_limit",
      messagesRef: "transcripts/run-1/r3.json",
      tokensRef: null,
      patchSha256: patchSha256("broken"),
    },
  ];
}
