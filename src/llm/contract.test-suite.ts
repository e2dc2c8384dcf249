import { afterEach, describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "./chat-model.ts";
import { ChatModelError } from "./chat-model-error.ts";

/**
 * The contract every ChatModel keeps (chat-model.ts), on the same cases for each implementation:
 * - a text reply comes back as the assistant's content, finish reason `stop`, no tool calls;
 * - tool calls come back with their names, distinct ids and their arguments as raw text, malformed
 *   JSON included (the agent must be able to tell the model so), finish reason `tool_calls`;
 * - the usage the reply reports is the usage returned;
 * - a refused request rejects with a ChatModelError of kind `client`, not retryable;
 * - a server fault that persists rejects with a retryable ChatModelError;
 * - a reply that never comes ends at the call's `timeoutMs` (`timeout`) or its signal (`aborted`);
 * implementations reject with nothing but ChatModelError.
 */
export type ContractReply =
  | {
      content: string | null;
      toolCalls?: Array<{ name: string; arguments: unknown }>;
      usage?: { promptTokens: number; completionTokens: number };
    }
  | { fault: "client" | "server" }
  | { hang: true };

export interface ChatModelContractTarget {
  name: string;
  /** A model that answers every call with `reply`, in its own way (a script, a server). */
  start(reply: ContractReply): Promise<{ model: ChatModel; close(): Promise<void> }>;
}

const REQUEST: ChatRequest = {
  messages: [
    { role: "system", content: "rank the candidates" },
    { role: "user", content: "A, B" },
  ],
  tools: [
    { name: "view_patch", description: "show a patch", parameters: { type: "object", properties: {} } },
  ],
  maxOutputTokens: 100,
};

export function chatModelContract(target: ChatModelContractTarget): void {
  describe(`ChatModel contract: ${target.name}`, () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await close?.();
      close = undefined;
    });
    const modelAnswering = async (reply: ContractReply) => {
      const started = await target.start(reply);
      close = started.close;
      return started.model;
    };
    const failure = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ChatModelError);
      return error as ChatModelError;
    };

    it("returns a text reply as the assistant's content", async () => {
      const model = await modelAnswering({
        content: "A is better",
        usage: { promptTokens: 31, completionTokens: 4 },
      });
      const response = await model.complete(REQUEST);
      expect(response.message).toEqual({ role: "assistant", content: "A is better" });
      expect(response.finishReason).toBe("stop");
      expect(response.usage).toMatchObject({ promptTokens: 31, completionTokens: 4 });
      expect(response.attempts).toBeGreaterThanOrEqual(1);
      expect(typeof model.modelId).toBe("string");
    });

    it("returns tool calls with distinct ids and their arguments as raw text, malformed JSON too", async () => {
      const model = await modelAnswering({
        content: null,
        toolCalls: [
          { name: "view_patch", arguments: { candidate: "A" } },
          { name: "view_patch", arguments: '{"candidate": "B"' },
        ],
      });
      const response = await model.complete(REQUEST);
      expect(response.finishReason).toBe("tool_calls");
      const calls = response.message.toolCalls ?? [];
      expect(calls.map((c) => [c.name, c.arguments])).toEqual([
        ["view_patch", '{"candidate":"A"}'],
        ["view_patch", '{"candidate": "B"'],
      ]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      for (const call of calls) expect(call.id).not.toBe("");
    });

    it("rejects a refused request as a client fault, not worth retrying", async () => {
      const model = await modelAnswering({ fault: "client" });
      const error = await failure(model.complete(REQUEST));
      expect(error.kind).toBe("client");
      expect(error.retryable).toBe(false);
    });

    it("rejects a server fault that persists as a retryable fault", async () => {
      const model = await modelAnswering({ fault: "server" });
      const error = await failure(model.complete(REQUEST));
      expect(error.retryable).toBe(true);
    });

    it("ends a reply that never comes at the call's timeout, or at its signal", async () => {
      const model = await modelAnswering({ hang: true });
      expect((await failure(model.complete(REQUEST, { timeoutMs: 200 }))).kind).toBe("timeout");
      const abort = new AbortController();
      const pending = failure(model.complete(REQUEST, { signal: abort.signal }));
      setTimeout(() => abort.abort(), 50);
      expect((await pending).kind).toBe("aborted");
    });
  });
}
