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
 */
export interface ReceivedRequest {
  /** 0-based order of arrival. */
  index: number;
  path: string;
  headers: IncomingMessage["headers"];
  body: ChatCompletionBody;
}

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

export async function startOpenAITestServer(
  initial: Responder | ServerReply[] = [],
): Promise<OpenAITestServer> {
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
    const computed = {
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
      choices: [
        {
          index: 0,
          message,
          finish_reason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
          logprobs: null,
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
