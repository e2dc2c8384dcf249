import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TokenTrace } from "../../llm/chat-model.ts";
import { type StoredTurnTokens, storedTurnTokens } from "./turn-tokens.ts";

/** The decoding rule of StoredTurnTokens, as a trainer applies it. */
function prompts(stored: StoredTurnTokens[]): (number[] | undefined)[] {
  let prev: number[] = [];
  return stored.map((turn) => {
    if (turn.promptTokenIds === undefined) {
      prev = [];
      return undefined;
    }
    const prompt = [...prev.slice(0, turn.promptReused), ...turn.promptTokenIds];
    prev = [...prompt, ...(turn.tokenIds ?? [])];
    return prompt;
  });
}

const ids = fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 12 });

/** A conversation whose prompts mostly extend the previous prompt + reply, sometimes re-rendered. */
const conversation = fc
  .array(
    fc.record({
      added: ids,
      reply: ids,
      rerender: fc.option(fc.integer({ min: 0, max: 30 }), { freq: 4 }),
      withPrompt: fc.boolean(),
      withIds: fc.boolean(),
    }),
    { maxLength: 8 },
  )
  .map((turns) => {
    let history: number[] = [];
    return turns.map(({ added, reply, rerender, withPrompt, withIds }, i) => {
      const kept = rerender === null ? history : history.slice(0, rerender);
      const prompt = [...kept, ...added];
      history = [...prompt, ...reply];
      const trace: TokenTrace = { logprobs: reply.map((t) => -t / 10) };
      if (withPrompt) trace.promptTokenIds = prompt;
      if (withIds) trace.tokenIds = reply;
      return { message: 2 + 2 * i, trace };
    });
  });

describe("storedTurnTokens", () => {
  it("stores prompts as deltas that decode back to every turn's full prompt", () => {
    fc.assert(
      fc.property(conversation, (turns) => {
        const stored = storedTurnTokens(turns);
        expect(prompts(stored)).toEqual(turns.map((t) => t.trace.promptTokenIds));
        stored.forEach((s, i) => {
          expect(s.message).toBe(turns[i]!.message);
          expect(s.tokenIds).toEqual(turns[i]!.trace.tokenIds);
          expect(s.logprobs).toEqual(turns[i]!.trace.logprobs);
        });
      }),
      { numRuns: 300, seed: 16 },
    );
  });

  it("keeps only the tokens added since the last reply when the prompt extends it exactly", () => {
    const stored = storedTurnTokens([
      { message: 2, trace: { promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.1, -0.2] } },
      { message: 4, trace: { promptTokenIds: [1, 2, 3, 4, 5, 9, 9], tokenIds: [6], logprobs: [-0.3] } },
    ]);
    expect(stored).toEqual([
      { message: 2, promptReused: 0, promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.1, -0.2] },
      { message: 4, promptReused: 5, promptTokenIds: [9, 9], tokenIds: [6], logprobs: [-0.3] },
    ]);
  });
});
