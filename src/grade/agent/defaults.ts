/**
 * Defaults of the agent grader, each with its reason. Flags override them (`gagar grade --passes …`).
 */
export const AGENT_DEFAULTS = {
  /** Three shuffled passes: enough for Borda to outvote one position-biased pass, at 3× the cost of one. */
  passes: 3,
  /** Model calls per pass: a careful review reads each patch, a few files and compares pairs; 12 turns covers 4–6 candidates. */
  maxTurns: 12,
  /** Tokens per pass, prompt + completion over all calls: about six turns re-sending a 10k-token history. */
  maxTokens: 64_000,
  /** Wall time per pass: a slow local model at ~20 tokens/s still finishes a dozen short turns. */
  timeoutSec: 300,
  /** Tokens one call may generate: tool calls and a rationale are short; a runaway generation is cut early. */
  maxOutputTokens: 4_096,
  /** Groups graded at once: keeps a single local model server busy without queueing minutes of requests. */
  concurrency: 4,
  /** Greedy decoding: the same ranking for the same input makes passes differ only by the shuffled order. */
  temperature: 0,
} as const;
