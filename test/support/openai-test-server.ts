import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol (non-streaming),
 * for end-to-end tests of everything that reaches a model through the `openai` client.
 *
 * Each test scripts it with a responder: a list of replies played in order, or a function of the
 * request. A reply is an assistant message (text and/or tool calls, several = parallel tool calls),
 * an HTTP error status, a 200 with a body that is not a completion, or a hang (the request is held
 * open until the client gives up or the server closes).
 *
 * Usage numbers are computed from what was actually received, so token measurements on this server
 * mean something: prompt tokens = ceil(characters of JSON(messages) + JSON(tools)) / 4), completion
 * tokens = ceil(characters of JSON(the reply message) / 4).
 *
 * Token-level answers (`tokens` option) behave like the servers gagar meets:
 * - `none` (default): fields it does not know are ignored and `logprobs` is null (Ollama, old servers);
 * - `openai`: `logprobs: true` gives per-token texts and logprobs; any field outside the OpenAI
 *   protocol is rejected with HTTP 400 "Unrecognized request argument supplied: …", as OpenAI does;
 * - `vllm`: also `return_token_ids` (top-level `prompt_token_ids`, `choices[0].token_ids`) and
 *   `return_tokens_as_token_ids` (logprob tokens written `token_id:N`), as vLLM does;
 * - `refuse`: rejects `logprobs` and unknown fields with HTTP 400 (a server that offers neither).
 * In every mode but `none` the server tokenizes with its own small chat template (testTokenizer
 * below), usage counts those tokens, and each request records the ids it computed, so a test can
 * compare what a client stored with what the server sampled.
 */
export interface ReceivedRequest {
  /** 0-based order of arrival. */
  index: number;
  path: string;
  headers: IncomingMessage["headers"];
  body: ChatCompletionBody;
  /** The prompt and reply as this server tokenized them (token modes other than `none`, answered requests). */
  sampled?: { promptTokenIds: number[]; tokenIds: number[]; logprobs: number[] };
}

export type TokenMode = "none" | "openai" | "vllm" | "refuse";

export interface ChatCompletionBody {
  model: string;
  messages: WireMessage[];
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters?: unknown } }>;
  max_tokens?: number;
  [key: string]: unknown;
}

export interface WireMessage {
  role: "system" | "user" | "assistant" | "tool" | "developer";
  content: string | null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export type ServerReply =
  | {
      content?: string | null;
      /** `arguments` that is not a string is JSON-encoded; a string is sent verbatim (malformed JSON too). */
      toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
      finishReason?: string;
      /** Override the computed usage, or `null` to send none. */
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string }
  | { hang: true };

export type Responder = (request: ReceivedRequest) => ServerReply | Promise<ServerReply>;

export interface OpenAITestServer {
  /** Pass as the client's base URL; ends in `/v1`. */
  baseURL: string;
  requests: ReceivedRequest[];
  /** Sum of the usage the server reported. */
  usage: { promptTokens: number; completionTokens: number };
  /** Replaces the script (and restarts a list script from its first reply). */
  respondWith(responder: Responder | ServerReply[]): void;
  close(): Promise<void>;
}

export function textReply(content: string): ServerReply {
  return { content };
}

export function toolCallsReply(
  ...calls: Array<{ name: string; arguments: unknown; id?: string }>
): ServerReply {
  return { content: null, toolCalls: calls };
}

export function promptTokensOf(body: ChatCompletionBody): number {
  return Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length) / 4);
}

/** Request fields of the OpenAI chat-completions protocol (anything else is an extension). */
const OPENAI_FIELDS = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "n",
  "stop",
  "seed",
  "logprobs",
  "top_logprobs",
  "presence_penalty",
  "frequency_penalty",
  "user",
  "stream",
  "response_format",
]);

export async function startOpenAITestServer(
  initial: Responder | ServerReply[] = [],
  options: { tokens?: TokenMode } = {},
): Promise<OpenAITestServer> {
  const tokenMode = options.tokens ?? "none";
  let responder = asResponder(initial);
  const requests: ReceivedRequest[] = [];
  const usage = { promptTokens: 0, completionTokens: 0 };
  let ids = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      if (!res.headersSent)
        send(res, 500, { error: { message: String(error?.stack ?? error), type: "test_server_error" } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "/";
    const text = await readBody(req);
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      return send(res, 404, {
        error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" },
      });
    }
    let body: ChatCompletionBody;
    try {
      body = JSON.parse(text);
    } catch {
      return send(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
    }
    const request: ReceivedRequest = { index: requests.length, path, headers: req.headers, body };
    requests.push(request);
    const rejected = rejectedField(body, tokenMode);
    if (rejected) {
      return send(res, 400, {
        error: { message: rejected, type: "invalid_request_error", param: null, code: null },
      });
    }
    const reply = await responder(request);
    if ("hang" in reply) return;
    if ("raw" in reply) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(reply.raw);
      return;
    }
    if ("status" in reply) {
      return send(
        res,
        reply.status,
        reply.body ?? { error: { message: `scripted ${reply.status}`, type: "server_error" } },
        reply.headers,
      );
    }
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${request.index}_${i}`,
      type: "function" as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const message = {
      role: "assistant",
      content: reply.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    };
    const tokenized = tokenMode === "none" ? undefined : sampleTokens(body, message);
    if (tokenized) request.sampled = tokenized;
    const computed = tokenized
      ? { prompt_tokens: tokenized.promptTokenIds.length, completion_tokens: tokenized.tokenIds.length }
      : {
          prompt_tokens: promptTokensOf(body),
          completion_tokens: Math.ceil(JSON.stringify(message).length / 4),
        };
    const reported = reply.usage === undefined ? computed : reply.usage;
    if (reported) {
      usage.promptTokens += reported.prompt_tokens;
      usage.completionTokens += reported.completion_tokens;
    }
    send(res, 200, {
      id: `chatcmpl-${++ids}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      ...(tokenized && body.return_token_ids === true ? { prompt_token_ids: tokenized.promptTokenIds } : {}),
      choices: [
        {
          index: 0,
          message,
          finish_reason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
          logprobs: tokenized && body.logprobs === true ? logprobsContent(tokenized, body) : null,
          ...(tokenized && body.return_token_ids === true ? { token_ids: tokenized.tokenIds } : {}),
        },
      ],
      ...(reported
        ? { usage: { ...reported, total_tokens: reported.prompt_tokens + reported.completion_tokens } }
        : {}),
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    usage,
    respondWith(next) {
      responder = asResponder(next);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Why a server of this mode refuses the request (HTTP 400), or undefined. */
function rejectedField(body: ChatCompletionBody, mode: TokenMode): string | undefined {
  if (mode === "refuse" && body.logprobs !== undefined) return "logprobs is not supported by this server";
  if (mode !== "openai" && mode !== "refuse") return undefined;
  const unknown = Object.keys(body).find((key) => !OPENAI_FIELDS.has(key));
  return unknown ? `Unrecognized request argument supplied: ${unknown}` : undefined;
}

function logprobsContent(
  sampled: NonNullable<ReceivedRequest["sampled"]>,
  body: ChatCompletionBody,
): { content: Array<{ token: string; logprob: number; bytes: number[]; top_logprobs: [] }> } {
  return {
    content: sampled.tokenIds.map((id, i) => {
      const token = body.return_tokens_as_token_ids === true ? `token_id:${id}` : testTokenizer.text(id);
      return { token, logprob: sampled.logprobs[i]!, bytes: [...Buffer.from(token)], top_logprobs: [] };
    }),
  };
}

/** The prompt's tokens (chat template applied, generation prompt last) and the reply's, with a logprob each. */
function sampleTokens(
  body: ChatCompletionBody,
  message: { content: string | null; tool_calls?: WireMessage["tool_calls"] },
): NonNullable<ReceivedRequest["sampled"]> {
  const promptTokenIds = [
    ...testTokenizer.encodeTools(body.tools ?? []),
    ...body.messages.flatMap((m) => testTokenizer.encodeMessage(m)),
    testTokenizer.header("assistant"),
  ];
  const tokenIds = testTokenizer.encodeReply(message);
  const logprobs = tokenIds.map((id, i) => -((((id * 31 + i * 17) % 997) + 1) / 100));
  return { promptTokenIds, tokenIds, logprobs };
}

/**
 * A tiny deterministic tokenizer with a prefix-stable chat template: each message is
 * `<|role|>` + its body in 3-character pieces + `<|end|>`, so the prompt of a later turn starts
 * with the earlier prompt followed by the earlier reply's tokens, as with real chat templates.
 * Ids 1–7 are the special tokens; a piece's id is 100 + its index in a shared vocabulary.
 */
const testTokenizer = (() => {
  const specials = [
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|tool|>",
    "<|developer|>",
    "<|tools|>",
    "<|end|>",
  ];
  const vocabulary: string[] = [];
  const index = new Map<string, number>();
  const piece = (text: string): number => {
    let id = index.get(text);
    if (id === undefined) {
      id = 100 + vocabulary.length;
      vocabulary.push(text);
      index.set(text, id);
    }
    return id;
  };
  const body = (text: string): number[] =>
    Array.from({ length: Math.ceil(text.length / 3) }, (_, i) => piece(text.slice(i * 3, i * 3 + 3)));
  const special = (name: string): number => specials.indexOf(name) + 1;
  const replyText = (m: { content: string | null; tool_calls?: WireMessage["tool_calls"] }): string =>
    (m.content ?? "") +
    (m.tool_calls ?? []).map((c) => `<call ${c.function.name}>${c.function.arguments}</call>`).join("");
  return {
    header: (role: string) => special(`<|${role}|>`),
    text: (id: number): string => specials[id - 1] ?? vocabulary[id - 100] ?? "",
    encodeTools: (tools: unknown[]): number[] =>
      tools.length ? [special("<|tools|>"), ...body(JSON.stringify(tools)), special("<|end|>")] : [],
    encodeMessage(m: WireMessage): number[] {
      const text = m.role === "assistant" ? replyText(m) : (m.content ?? "");
      return [special(`<|${m.role}|>`), ...body(text), special("<|end|>")];
    },
    /** A reply as sampled: its body and the end token (the `<|assistant|>` header is the prompt's). */
    encodeReply: (m: { content: string | null; tool_calls?: WireMessage["tool_calls"] }): number[] => [
      ...body(replyText(m)),
      special("<|end|>"),
    ],
  };
})();

function asResponder(script: Responder | ServerReply[]): Responder {
  if (typeof script === "function") return script;
  let next = 0;
  return () => {
    const reply = script[next++];
    if (!reply)
      throw new Error(`the test server's script has ${script.length} replies; request ${next} is past it`);
    return reply;
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
