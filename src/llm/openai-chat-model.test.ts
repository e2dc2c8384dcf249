import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import {
  type OpenAITestServer,
  startOpenAITestServer,
  textReply,
  toolCallsReply,
} from "../../test/support/openai-test-server.ts";
import type { ChatRequest } from "./chat-model.ts";
import { createOpenAIChatModel } from "./openai-chat-model.ts";

const fast = { retries: 2, initialDelayMs: 1, maxDelayMs: 5 };
const request: ChatRequest = {
  messages: [
    { role: "system", content: "rank" },
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", name: "view_patch", arguments: '{"candidate":"A"}' }],
    },
    { role: "tool", toolCallId: "c1", content: "diff --git …" },
  ],
  tools: [
    { name: "view_patch", description: "show a patch", parameters: { type: "object", properties: {} } },
  ],
  maxOutputTokens: 100,
};

let server: OpenAITestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createOpenAIChatModel against a real chat-completions server", () => {
  it("sends the OpenAI wire format and reads parallel tool calls and usage back", async () => {
    server = await startOpenAITestServer([
      toolCallsReply(
        { name: "read_file", arguments: { path: "a.py" } },
        { name: "search", arguments: "{broken" },
      ),
    ]);
    const model = createOpenAIChatModel({
      baseURL: server.baseURL,
      model: "grader-1",
      apiKey: "sk-test",
      retry: fast,
    });
    const response = await model.complete(request);

    const sent = server.requests[0]!;
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.body.model).toBe("grader-1");
    expect(sent.body.max_tokens).toBe(100);
    expect(sent.body.messages[2]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "view_patch", arguments: '{"candidate":"A"}' } },
      ],
    });
    expect(sent.body.messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "diff --git …" });
    expect(sent.body.tools?.[0]?.function.name).toBe("view_patch");

    expect(response.finishReason).toBe("tool_calls");
    expect(response.message.toolCalls?.map((c) => [c.name, c.arguments])).toEqual([
      ["read_file", '{"path":"a.py"}'],
      ["search", "{broken"],
    ]);
    expect(response.usage).toEqual({
      promptTokens: server.usage.promptTokens,
      completionTokens: server.usage.completionTokens,
    });
    expect(response.attempts).toBe(1);
  });

  it("normalizes tool calls sent without id or type, with arguments as an object", async () => {
    const completion = {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ function: { name: "view_patch", arguments: { candidate: "B" } } }],
          },
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    server = await startOpenAITestServer([{ raw: JSON.stringify(completion) }]);
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const response = await model.complete(request);
    expect(response.message.toolCalls).toEqual([
      { id: "call_0", name: "view_patch", arguments: '{"candidate":"B"}' },
    ]);
    expect(response.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
  });

  it("retries 5xx and 429 (honouring Retry-After) and counts the attempts", async () => {
    server = await startOpenAITestServer([
      { status: 503 },
      { status: 429, headers: { "retry-after-ms": "1" } },
      { content: "done" },
    ]);
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const response = await model.complete(request);
    expect(response.message.content).toBe("done");
    expect(response.attempts).toBe(3);
  });

  it("does not retry a 400 and says what to check on a 404", async () => {
    server = await startOpenAITestServer([{ status: 400 }, { status: 404 }]);
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    await expect(model.complete(request)).rejects.toMatchObject({ kind: "client", options: { attempts: 1 } });
    await expect(model.complete(request)).rejects.toThrow(/check --base-url and --model/);
  });

  it("gives up on a hanging server at the call's timeout", async () => {
    server = await startOpenAITestServer(() => ({ hang: true }));
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const started = Date.now();
    const error = await model.complete(request, { timeoutMs: 300 }).catch((e) => e);
    expect(error.kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("reports a refused connection after its retries", async () => {
    server = await startOpenAITestServer();
    const baseURL = server.baseURL;
    await server.close();
    server = undefined;
    const model = createOpenAIChatModel({ baseURL, model: "m", retry: fast });
    await expect(model.complete(request)).rejects.toMatchObject({
      kind: "connection",
      options: { attempts: 3 },
    });
  });

  it("rejects a 200 that is not a chat completion, and estimates usage a server leaves out", async () => {
    server = await startOpenAITestServer([
      { raw: '{"object":"list","data":[]}' },
      { content: "hi", usage: null },
    ]);
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    await expect(model.complete(request)).rejects.toMatchObject({ kind: "protocol" });
    const response = await model.complete(request);
    expect(response.usage.estimated).toBe(true);
    expect(response.usage.promptTokens).toBeGreaterThan(10);
  });
});

describe("token-level replies", () => {
  const asking: ChatRequest = { ...request, logprobs: true };

  it("asks a vLLM-like server for logprobs and token ids and returns them aligned", async () => {
    server = await startOpenAITestServer(
      [toolCallsReply({ name: "view_patch", arguments: { candidate: "A" } })],
      {
        tokens: "vllm",
      },
    );
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const response = await model.complete(asking);
    const sent = server.requests[0]!;
    expect(sent.body).toMatchObject({
      logprobs: true,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
    });
    const sampled = sent.sampled!;
    expect(response.tokens).toEqual({
      promptTokenIds: sampled.promptTokenIds,
      tokenIds: sampled.tokenIds,
      logprobs: sampled.logprobs,
    });
    expect(response.usage).toEqual({
      promptTokens: sampled.promptTokenIds.length,
      completionTokens: sampled.tokenIds.length,
    });
  });

  it("asks no token fields when the request does not want them", async () => {
    server = await startOpenAITestServer([textReply("ok")], { tokens: "vllm" });
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const response = await model.complete(request);
    expect(Object.keys(server.requests[0]!.body)).not.toContain("logprobs");
    expect(response.tokens).toBeUndefined();
  });

  it("steps down once to standard logprobs on a server that rejects the extensions, and stays there", async () => {
    server = await startOpenAITestServer([textReply("first"), textReply("second")], { tokens: "openai" });
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const first = await model.complete(asking);
    const second = await model.complete(asking);
    expect(
      server.requests.map((r) =>
        Object.keys(r.body).filter((k) => k === "logprobs" || k.startsWith("return_")),
      ),
    ).toEqual([["logprobs", "return_token_ids", "return_tokens_as_token_ids"], ["logprobs"], ["logprobs"]]);
    expect(first.attempts).toBe(1);
    expect(first.message.content).toBe("first");
    expect(second.message.content).toBe("second");
    const sampled = server.requests[2]!.sampled!;
    expect(second.tokens?.logprobs).toEqual(sampled.logprobs);
    expect(second.tokens?.tokens).toHaveLength(sampled.tokenIds.length);
    expect(second.tokens?.tokenIds).toBeUndefined();
  });

  it("works with a server that offers neither logprobs nor ids", async () => {
    server = await startOpenAITestServer([textReply("a"), textReply("b")], { tokens: "refuse" });
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    expect((await model.complete(asking)).tokens).toBeUndefined();
    expect((await model.complete(asking)).message.content).toBe("b");
    // Three requests for the first call (each rung once), one plain request for the second.
    expect(server.requests).toHaveLength(4);
    expect(Object.keys(server.requests[3]!.body)).not.toContain("logprobs");
  });

  it("does not give up token fields over a rejection that has nothing to do with them", async () => {
    let calls = 0;
    server = await startOpenAITestServer(() => (calls++ < 3 ? { status: 400 } : textReply("fine")), {
      tokens: "vllm",
    });
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    await expect(model.complete(asking)).rejects.toMatchObject({ kind: "client", options: { status: 400 } });
    const response = await model.complete(asking);
    expect(server.requests.at(-1)!.body).toMatchObject({ return_token_ids: true });
    expect(response.tokens?.tokenIds).toEqual(server.requests.at(-1)!.sampled!.tokenIds);
  });
});

describe("a caller's signal shared by many calls", () => {
  it("keeps no abort listener on it once the calls are done (no MaxListenersExceededWarning)", async () => {
    server = await startOpenAITestServer(() => textReply("ok"));
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const shared = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      for (let i = 0; i < 15; i++) await model.complete(request, { signal: shared.signal });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("still aborts the request in flight", async () => {
    server = await startOpenAITestServer(() => ({ hang: true }));
    const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "m", retry: fast });
    const shared = new AbortController();
    const pending = model.complete(request, { signal: shared.signal }).catch((e) => e);
    setTimeout(() => shared.abort(), 50);
    expect(await pending).toMatchObject({ kind: "aborted" });
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });
});
