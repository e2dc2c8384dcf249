import type { TurnTrace } from "./agent-loop.ts";

/**
 * One assistant turn's tokens as a trajectory stores them (`trajectory.turnTokens`, one entry per
 * assistant message the server reported tokens for, in order). `tokenIds`, `tokens` and `logprobs`
 * are the reply as sampled; which of them are present depends on the server (TokenTrace).
 *
 * The prompt is stored as a delta, because each turn's prompt repeats the whole conversation so far
 * (a 30-turn rollout would store its first turns 30 times). With `prev` = the previous stored turn's
 * full prompt followed by its `tokenIds` (if any) — empty before the first turn and after a turn
 * without prompt ids:
 *
 *     prompt = prev[0 : promptReused] ++ promptTokenIds
 *
 * When the server's chat template renders the history exactly as it was sampled, `promptReused` is
 * all of `prev` and `promptTokenIds` are only the tokens added since (tool results, role markers):
 * the tokens a multi-turn trainer masks out. A smaller `promptReused` means the template re-rendered
 * earlier turns (some drop past reasoning, for example), so the conversation is not one token stream.
 */
export interface StoredTurnTokens {
  /** Index of the assistant message in `trajectory.messages`. */
  message: number;
  promptReused?: number;
  promptTokenIds?: number[];
  tokenIds?: number[];
  tokens?: string[];
  logprobs?: number[];
}

/** The turns' token traces in the stored, prompt-delta form (see StoredTurnTokens). */
export function storedTurnTokens(turns: readonly TurnTrace[]): StoredTurnTokens[] {
  let prev: number[] = [];
  return turns.map(({ message, trace }) => {
    const stored: StoredTurnTokens = { message };
    if (trace.promptTokenIds) {
      const prompt = trace.promptTokenIds;
      const reused = commonPrefixLength(prev, prompt);
      stored.promptReused = reused;
      stored.promptTokenIds = prompt.slice(reused);
      prev = [...prompt, ...(trace.tokenIds ?? [])];
    } else {
      // Without this turn's prompt the next one cannot be a delta of it.
      prev = [];
    }
    if (trace.tokenIds) stored.tokenIds = trace.tokenIds;
    if (trace.tokens) stored.tokens = trace.tokens;
    if (trace.logprobs) stored.logprobs = trace.logprobs;
    return stored;
  });
}

function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
