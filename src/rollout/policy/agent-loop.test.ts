import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../llm/chat-model.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";
import { ScriptedChatModel } from "../../llm/scripted-model.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { type AgentLoopOptions, runAgentLoop } from "./agent-loop.ts";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";
import { createToolExecutor, SUBMITTED } from "./tool-executor.ts";
import { POLICY_TOOLS } from "./tool-specs.ts";

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

const PROMPT: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "fix it" },
];

async function loop(model: ScriptedChatModel, overrides: Partial<AgentLoopOptions> = {}) {
  const workspace = await makeTree({ "a.txt": "a\n" });
  const execute = createToolExecutor({
    sandbox,
    workspace,
    controlDir: await makeTree({}),
    commandTimeoutMs: 30_000,
    commandOutputCapBytes: 1 << 20,
    fileToolTimeoutMs: 30_000,
    fileReadLimitBytes: 1 << 20,
    toolOutputCapBytes: 16 << 10,
  });
  const result = await runAgentLoop({
    model,
    messages: PROMPT,
    tools: POLICY_TOOLS,
    execute,
    maxTurns: 5,
    maxOutputTokens: 512,
    temperature: 0.7,
    timeoutMs: 9_000,
    ...overrides,
  });
  return { result, workspace };
}

describe("runAgentLoop", { timeout: 60_000 }, () => {
  it("answers every call of a parallel reply in order and stops at submit without running the calls after it", async () => {
    const model = new ScriptedChatModel([
      {
        content: "Several at once.",
        toolCalls: [
          { id: "c1", name: "read_file", arguments: '{"path": ' },
          { id: "c2", name: "delete_everything", arguments: {} },
          { id: "c3", name: "submit", arguments: {} },
          { id: "c4", name: "shell", arguments: { command: "touch after-submit" } },
        ],
      },
    ]);
    const { result, workspace } = await loop(model);
    expect(result.finishReason).toBe("submit");
    expect(result.turns).toBe(1);
    expect(result.toolCalls).toBe(4);
    const answers = result.messages.slice(3);
    expect(answers.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(["c1", "c2", "c3", "c4"]);
    expect(answers.map((m) => m.content)).toEqual([
      expect.stringMatching(/^Error: the arguments of read_file are not valid JSON/),
      expect.stringMatching(/^Error: unknown tool "delete_everything"/),
      SUBMITTED,
      "Error: not run, because submit ended the session.",
    ]);
    expect(await readdir(workspace)).toEqual(["a.txt"]);
  });

  it("stops after maxTurns, each turn's call answered, and sends the growing conversation each time", async () => {
    const model = new ScriptedChatModel(() => ({ toolCalls: [{ name: "shell", arguments: { cmd: "ls" } }] }));
    const { result } = await loop(model, { maxTurns: 3 });
    expect(result.finishReason).toBe("max_turns");
    expect(result.turns).toBe(3);
    expect(result.toolCalls).toBe(3);
    expect(result.messages).toHaveLength(2 + 3 * 2);
    expect(model.calls.map((c) => c.request.messages.length)).toEqual([2, 4, 6]);
    expect(result.messages[3]).toMatchObject({ role: "tool", content: expect.stringMatching(/command: /) });
    expect(model.calls[0]).toEqual({
      request: { messages: PROMPT, tools: POLICY_TOOLS, maxOutputTokens: 512, temperature: 0.7 },
      options: { timeoutMs: 9_000 },
    });
  });

  it("stops on a reply cut off by the token cap without running its (possibly truncated) calls", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "shell", arguments: '{"command": "touch half' }], finishReason: "length" },
    ]);
    const { result } = await loop(model);
    expect(result.finishReason).toBe("length");
    expect(result.toolCalls).toBe(0);
    expect(result.messages.at(-1)?.role).toBe("assistant");
  });

  it("stops when the model answers without a tool call", async () => {
    const { result } = await loop(new ScriptedChatModel([{ content: "I am done." }]));
    expect(result).toMatchObject({ finishReason: "stop", turns: 1, toolCalls: 0 });
  });

  it("sums usage over the calls and keeps the last call's", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "nope", arguments: {} }], usage: { promptTokens: 100, completionTokens: 10 } },
      { toolCalls: [{ name: "submit", arguments: {} }], usage: { promptTokens: 150, completionTokens: 5 } },
    ]);
    const { result } = await loop(model);
    expect(result.usage).toEqual({ promptTokens: 250, completionTokens: 15 });
    expect(result.lastUsage).toEqual({ promptTokens: 150, completionTokens: 5 });
  });

  it("ends with time_limit when the wall-clock budget runs out during a model call", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "shell", arguments: { command: "true" } }] },
      { hang: true },
    ]);
    const started = Date.now();
    const { result } = await loop(model, { wallClockMs: 1_500, timeoutMs: 60_000 });
    expect(result).toMatchObject({ finishReason: "time_limit", turns: 1, toolCalls: 1 });
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", content: "(no output)" });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("gives a command no more than the time left, and answers the calls after it without running them", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: "slow", name: "shell", arguments: { command: "echo begun; sleep 30" } },
          { id: "next", name: "shell", arguments: { command: "touch never" } },
        ],
      },
    ]);
    const { result, workspace } = await loop(model, { wallClockMs: 2_000 });
    expect(result.finishReason).toBe("time_limit");
    const [slow, next] = result.messages.slice(3);
    expect(slow).toMatchObject({
      toolCallId: "slow",
      content: expect.stringMatching(/^begun\n\n\[timed out after /),
    });
    expect(next).toEqual({
      role: "tool",
      toolCallId: "next",
      content: "Error: not run, because the rollout reached its time limit.",
    });
    expect(await readdir(workspace)).toEqual(["a.txt"]);
  });

  it("ends with workspace_full once the workspace check says so, after the call that filled it", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: "fill", name: "shell", arguments: { command: "echo filling" } },
          { id: "more", name: "shell", arguments: { command: "touch more" } },
        ],
      },
    ]);
    let checks = 0;
    const { result } = await loop(model, { workspaceFull: async () => ++checks > 0 });
    expect(result.finishReason).toBe("workspace_full");
    expect(result.messages.slice(3).map((m) => m.content)).toEqual([
      "filling",
      "Error: not run, because the workspace is full (its disk quota is used up).",
    ]);
    expect(checks).toBe(1);
  });

  it("asks for logprobs when told to and keeps each reply's tokens with the index of its message", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [{ name: "nope", arguments: {} }],
        tokens: { promptTokenIds: [1, 2, 3], tokenIds: [7, 8], logprobs: [-0.5, -0.25] },
      },
      { content: "no tokens reported for this one" },
      {
        toolCalls: [{ name: "submit", arguments: {} }],
        tokens: { tokens: ["sub", "mit"], logprobs: [-1, -2] },
      },
    ]);
    const { result } = await loop(model, { logprobs: true });
    expect(model.calls.every((c) => c.request.logprobs === true)).toBe(true);
    expect(result.finishReason).toBe("stop");
    expect(result.tokens).toEqual([
      { message: 2, trace: { promptTokenIds: [1, 2, 3], tokenIds: [7, 8], logprobs: [-0.5, -0.25] } },
    ]);
  });

  it("rejects with the model's error instead of ending the rollout", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "nope", arguments: {} }] },
      { error: new ChatModelError("http://127.0.0.1:9/v1 answered HTTP 503", "server", { status: 503 }) },
    ]);
    await expect(loop(model)).rejects.toThrow(ChatModelError);
  });
});
