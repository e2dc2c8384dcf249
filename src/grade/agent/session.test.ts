import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../llm/chat-model.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";
import { ScriptedChatModel, type ScriptStep } from "../../llm/scripted-model.ts";
import { TOOL_SPECS } from "./protocol.ts";
import { NUDGE_LAST_TURN, NUDGE_USE_TOOLS, runSession, type SessionInput } from "./session.ts";

const valid = { ranking: [["B"], ["A"]], rationale: "B is smaller" };

function setup(steps: ScriptStep[], overrides: Partial<SessionInput> = {}) {
  const model = new ScriptedChatModel(steps);
  const executed: ToolCall[] = [];
  const input: SessionInput = {
    model,
    system: "grade",
    user: "candidates A, B",
    tools: TOOL_SPECS,
    labels: ["A", "B"],
    execute: async (call) => {
      executed.push(call);
      return `result of ${call.name} ${call.arguments}`;
    },
    budget: { maxTurns: 6, maxTokens: 1_000_000, timeoutMs: 10_000 },
    maxOutputTokens: 1000,
    ...overrides,
  };
  return { model, executed, run: () => runSession(input) };
}

describe("runSession", () => {
  it("runs parallel tool calls, returns their results in call order, and ends on a valid submission", async () => {
    const { model, executed, run } = setup([
      {
        toolCalls: [
          { name: "view_patch", arguments: { candidate: "A" } },
          { name: "view_patch", arguments: { candidate: "B" } },
        ],
        usage: { promptTokens: 100, completionTokens: 10 },
      },
      {
        toolCalls: [{ name: "submit_ranking", arguments: valid }],
        usage: { promptTokens: 150, completionTokens: 20 },
      },
    ]);
    const record = await run();
    expect(record.outcome).toEqual({ kind: "submitted", submission: { ...valid, findings: {} } });
    expect(executed.map((c) => c.arguments)).toEqual(['{"candidate":"A"}', '{"candidate":"B"}']);
    const second = model.calls[1]!.request.messages;
    expect(second.slice(3).map((m) => (m.role === "tool" ? [m.toolCallId, m.content] : m.role))).toEqual([
      ["call_0_0", 'result of view_patch {"candidate":"A"}'],
      ["call_0_1", 'result of view_patch {"candidate":"B"}'],
    ]);
    expect(record.usage).toEqual({ promptTokens: 250, completionTokens: 30, requests: 2 });
    expect(record.turns).toHaveLength(2);
  });

  it("returns an invalid submission to the model as a tool error and accepts the retry", async () => {
    const { model, run } = setup([
      { toolCalls: [{ name: "submit_ranking", arguments: { ranking: [["B"]], rationale: "" } }] },
      { toolCalls: [{ name: "submit_ranking", arguments: '{"ranking": [["B"], ["A"]' }] },
      { toolCalls: [{ name: "submit_ranking", arguments: valid }] },
    ]);
    const record = await run();
    expect(record.outcome.kind).toBe("submitted");
    expect(record.invalidSubmissions).toBe(2);
    const feedback = (i: number) => model.calls[i]!.request.messages.at(-1);
    expect(feedback(1)).toMatchObject({
      role: "tool",
      content: expect.stringMatching(/^error: invalid submit_ranking: not ranked: A/),
    });
    expect(feedback(2)).toMatchObject({
      role: "tool",
      content: expect.stringMatching(/^error: arguments are not valid JSON/),
    });
  });

  it("refuses two submissions in one message", async () => {
    const { run } = setup([
      {
        toolCalls: [
          { name: "submit_ranking", arguments: valid },
          { name: "submit_ranking", arguments: valid },
        ],
      },
      { toolCalls: [{ name: "submit_ranking", arguments: valid }] },
    ]);
    const record = await run();
    expect(record.invalidSubmissions).toBe(2);
    expect(record.turns).toHaveLength(2);
  });

  it("nudges a model that answers in prose back to the tools", async () => {
    const { model, run } = setup([
      { content: "B looks best." },
      { toolCalls: [{ name: "submit_ranking", arguments: valid }] },
    ]);
    expect((await run()).outcome.kind).toBe("submitted");
    expect(model.calls[1]!.request.messages.at(-1)).toEqual({ role: "user", content: NUDGE_USE_TOOLS });
  });

  it("fails on the turn budget when the model never submits, warning it before the last turn", async () => {
    const { model, run } = setup(Array(3).fill({ toolCalls: [{ name: "list_files", arguments: {} }] }), {
      budget: { maxTurns: 3, maxTokens: 1_000_000, timeoutMs: 10_000 },
    });
    const record = await run();
    expect(record.outcome).toMatchObject({ kind: "failed", cause: "turns" });
    expect(model.calls).toHaveLength(3);
    expect(model.calls[2]!.request.messages.at(-1)).toEqual({ role: "user", content: NUDGE_LAST_TURN });
  });

  it("fails on the token budget before sending a call that would pass it", async () => {
    const { model, run } = setup(
      Array(5).fill({
        toolCalls: [{ name: "list_files", arguments: {} }],
        usage: { promptTokens: 400, completionTokens: 50 },
      }),
      { tools: [], budget: { maxTurns: 10, maxTokens: 1_000, timeoutMs: 10_000 } },
    );
    const record = await run();
    expect(record.outcome).toMatchObject({ kind: "failed", cause: "tokens" });
    expect(model.calls).toHaveLength(2);
    expect(record.usage.promptTokens + record.usage.completionTokens).toBeLessThanOrEqual(1_000);
    expect(model.calls[1]!.request.maxOutputTokens).toBeLessThan(1_000 - 450);
  });

  it("fails on the time budget when the model hangs", async () => {
    const { run } = setup([{ hang: true }], { budget: { maxTurns: 5, maxTokens: 1_000_000, timeoutMs: 50 } });
    const started = Date.now();
    const record = await run();
    expect(record.outcome).toMatchObject({ kind: "failed", cause: "time" });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("ends at once when the model server fails, counting its requests", async () => {
    const error = new ChatModelError("HTTP 500", "server", { attempts: 4 });
    const { run } = setup([{ error }]);
    const record = await run();
    expect(record.outcome).toMatchObject({
      kind: "failed",
      cause: "server",
      reason: expect.stringContaining("HTTP 500"),
    });
    expect(record.usage.requests).toBe(4);
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    const { run } = setup([{ hang: true }], { signal: controller.signal });
    const pending = run();
    controller.abort();
    expect((await pending).outcome).toMatchObject({ kind: "failed", cause: "aborted" });
  });
});
