import { describe, expect, it } from "vitest";
import { ChatModelError } from "./chat-model-error.ts";
import { ScriptedChatModel } from "./scripted-model.ts";

const ask = { messages: [{ role: "user" as const, content: "x".repeat(40) }] };

describe("ScriptedChatModel", () => {
  it("plays its steps in order and records a snapshot of each request", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: "view_patch", arguments: { candidate: "A" } },
          { name: "bad", arguments: "{oops" },
        ],
      },
      (request) => ({ content: `saw ${request.messages.length}` }),
    ]);
    const messages = [...ask.messages];
    const first = await model.complete({ messages });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.message.toolCalls).toEqual([
      { id: "call_0_0", name: "view_patch", arguments: '{"candidate":"A"}' },
      { id: "call_0_1", name: "bad", arguments: "{oops" },
    ]);
    messages.push({ role: "user", content: "more" });
    const second = await model.complete({ messages });
    expect(second.message.content).toBe("saw 2");
    expect(model.calls.map((c) => c.request.messages.length)).toEqual([1, 2]);
  });

  it("reports prompt tokens as characters/4 of the request unless told otherwise", async () => {
    const model = new ScriptedChatModel([{ content: "ok" }, { content: "ok", usage: { promptTokens: 7 } }]);
    const chars = JSON.stringify(ask.messages).length;
    expect((await model.complete(ask)).usage.promptTokens).toBe(Math.ceil(chars / 4));
    expect((await model.complete(ask)).usage.promptTokens).toBe(7);
  });

  it("throws scripted errors, hangs until the timeout, and refuses to run past the script", async () => {
    const model = new ScriptedChatModel([
      { error: new ChatModelError("down", "connection") },
      { hang: true },
    ]);
    await expect(model.complete(ask)).rejects.toMatchObject({ kind: "connection" });
    await expect(model.complete(ask, { timeoutMs: 5 })).rejects.toMatchObject({ kind: "timeout" });
    await expect(model.complete(ask)).rejects.toThrow(/past the script/);
  });
});
