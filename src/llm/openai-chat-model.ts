import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { InvariantError } from "../errors.ts";
import type {
  AssistantMessage,
  CallOptions,
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  FinishReason,
  ToolCall,
  ToolSpec,
  Usage,
} from "./chat-model.ts";
import { estimateTokens } from "./chat-model.ts";
import { ChatModelError } from "./chat-model-error.ts";
import {
  TOKEN_REQUEST_LEVELS,
  type TokenRequestLevel,
  tokenRequestFields,
  tokenTraceOf,
} from "./openai-token-trace.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from "./retry.ts";

/**
 * The one file that sends OpenAI chat-completions requests (openai-token-trace.ts holds the
 * token-level extensions of the format). Works with any server that
 * speaks it (vLLM, SGLang, Ollama, llama.cpp's server, OpenAI) through the official `openai`
 * client; retries are gagar's own (the client's are off) so that backoff, deadlines and the
 * attempt count in the usage records are under one policy.
 */
export interface OpenAIChatModelOptions {
  /** e.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  baseURL: string;
  model: string;
  /** Sent as a bearer token; local servers usually ignore it. */
  apiKey?: string;
  /** Limit for one HTTP request; a call's own `timeoutMs` may shorten it. */
  requestTimeoutMs?: number;
  retry?: RetryPolicy;
  _internal?: {
    now?: () => number;
    random?: () => number;
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  };
}

/** Two minutes: a long tool-calling turn of a large model on a busy server, not a hung one. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** Local servers need no key, but the client requires a non-empty one. */
const NO_API_KEY = "no-key";

export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey || NO_API_KEY,
    maxRetries: 0,
    timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const now = options._internal?.now ?? Date.now;
  // The highest rung of the token ladder (openai-token-trace.ts) this server is still asked for; it
  // only ever goes down, once a rung was rejected and the one below it accepted.
  let tokenLevel: TokenRequestLevel = "ids";

  return {
    modelId: options.model,
    async complete(request: ChatRequest, call: CallOptions = {}): Promise<ChatResponse> {
      const started = now();
      const deadline = call.timeoutMs === undefined ? undefined : started + call.timeoutMs;
      const body = toOpenAIRequest(options.model, request);
      const send = async (level: TokenRequestLevel): Promise<ChatCompletion> => {
        const timeout = Math.min(
          requestTimeoutMs,
          deadline === undefined ? requestTimeoutMs : deadline - now(),
        );
        if (timeout <= 0)
          throw new ChatModelError("call deadline passed before the request was sent", "timeout");
        try {
          return await withLinkedSignal(call.signal, (signal) =>
            client.chat.completions.create(
              { ...body, ...tokenRequestFields(level) } as ChatCompletionCreateParamsNonStreaming,
              { signal, timeout, maxRetries: 0 },
            ),
          );
        } catch (error) {
          throw toChatModelError(error, options.baseURL);
        }
      };
      const { value, attempts } = await withRetries(
        async () => {
          let level = request.logprobs ? tokenLevel : "none";
          for (;;) {
            try {
              const completion = await send(level);
              if (request.logprobs && rung(level) > rung(tokenLevel)) tokenLevel = level;
              return completion;
            } catch (error) {
              // A server that rejects the token fields is asked again without them, at once; any other
              // failure (or a rejection of the plain request) goes to the retry policy as it is.
              if (!rejectedRequest(error) || level === "none") throw error;
              level = TOKEN_REQUEST_LEVELS[rung(level) + 1]!;
            }
          }
        },
        {
          policy: options.retry ?? DEFAULT_RETRY_POLICY,
          signal: call.signal,
          deadline,
          now,
          random: options._internal?.random,
          sleep: options._internal?.sleep,
        },
      );
      const response = fromOpenAICompletion(value, body);
      const tokens = request.logprobs ? tokenTraceOf(value) : undefined;
      return { ...response, ...(tokens ? { tokens } : {}), attempts, latencyMs: now() - started };
    },
  };
}

/**
 * Runs one HTTP request under its own AbortSignal that follows the caller's. The `openai` client adds
 * an abort listener to the signal it is given and never removes it; a caller's signal lives for a
 * whole group of rollouts (hundreds of requests), so listeners would pile up on it
 * (MaxListenersExceededWarning) and keep every finished request reachable. The link is removed as
 * soon as the request settles.
 */
export async function withLinkedSignal<T>(
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!outer) return run(undefined);
  const inner = new AbortController();
  const forward = () => inner.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener("abort", forward, { once: true });
  try {
    return await run(inner.signal);
  } finally {
    outer.removeEventListener("abort", forward);
  }
}

/** Position on the token ladder: 0 asks for the most. */
function rung(level: TokenRequestLevel): number {
  return TOKEN_REQUEST_LEVELS.indexOf(level);
}

function rejectedRequest(error: unknown): boolean {
  return (
    error instanceof ChatModelError &&
    error.kind === "client" &&
    (error.options.status === 400 || error.options.status === 422)
  );
}

/** Messages in the OpenAI chat format (also the format of OpenAI chat fine-tuning files). */
export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
      case "assistant":
        return m.toolCalls?.length
          ? {
              role: "assistant",
              content: m.content,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : { role: "assistant", content: m.content ?? "" };
      default:
        throw new InvariantError(`unknown chat message role in ${JSON.stringify(m)}`);
    }
  });
}

/** Tool specs in the OpenAI `tools` format. */
export function toOpenAITools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

function toOpenAIRequest(model: string, request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: toOpenAIMessages(request.messages),
  };
  if (request.tools?.length) body.tools = toOpenAITools(request.tools);
  // `max_tokens` rather than `max_completion_tokens`: the local servers gagar targets all read it.
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}

/** A tool call as servers really send it: some omit `type` or `id`, some send arguments as an object. */
interface WireToolCall {
  id?: string;
  type?: string;
  function?: { name?: unknown; arguments?: unknown };
}

function fromOpenAICompletion(
  completion: ChatCompletion,
  body: ChatCompletionCreateParamsNonStreaming,
): Omit<ChatResponse, "attempts" | "latencyMs"> {
  const choice = completion?.choices?.[0];
  if (!choice?.message) {
    throw new ChatModelError(
      "the server's response has no choices[0].message; is this a chat-completions endpoint?",
      "protocol",
    );
  }
  const raw = choice.message;
  const toolCalls: ToolCall[] = ((raw.tool_calls ?? []) as WireToolCall[]).flatMap((c, i) =>
    c.function
      ? [
          {
            id: c.id || `call_${i}`,
            name: String(c.function.name ?? ""),
            arguments: argumentsText(c.function.arguments),
          },
        ]
      : [],
  );
  const message: AssistantMessage = { role: "assistant", content: raw.content ?? null };
  if (toolCalls.length) message.toolCalls = toolCalls;
  return {
    message,
    finishReason: finishReason(choice.finish_reason),
    usage: usageOf(completion, body, message),
  };
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return args === undefined || args === null ? "" : JSON.stringify(args);
}

function finishReason(reason: string | null | undefined): FinishReason {
  return reason === "stop" || reason === "tool_calls" || reason === "length" ? reason : "other";
}

function usageOf(
  completion: ChatCompletion,
  body: ChatCompletionCreateParamsNonStreaming,
  message: AssistantMessage,
): Usage {
  const u = completion.usage;
  if (u && Number.isFinite(u.prompt_tokens) && Number.isFinite(u.completion_tokens)) {
    return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens };
  }
  return {
    promptTokens: estimateTokens(JSON.stringify(body.messages) + JSON.stringify(body.tools ?? [])),
    completionTokens: estimateTokens((message.content ?? "") + JSON.stringify(message.toolCalls ?? [])),
    estimated: true,
  };
}

function toChatModelError(error: unknown, baseURL: string): ChatModelError {
  if (error instanceof ChatModelError) return error;
  if (error instanceof APIUserAbortError) return new ChatModelError("the call was aborted", "aborted");
  if (error instanceof APIConnectionTimeoutError) {
    return new ChatModelError(`no response from ${baseURL} within the request timeout`, "timeout");
  }
  if (error instanceof APIConnectionError) {
    const cause = (error.cause as Error | undefined)?.message;
    return new ChatModelError(
      `cannot reach ${baseURL}${cause ? ` (${cause})` : ""}; is the model server running?`,
      "connection",
    );
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const message = `${baseURL} answered HTTP ${status}: ${error.message}`;
    if (status === 429)
      return new ChatModelError(message, "rate-limit", { status, retryAfterMs: retryAfterMs(error.headers) });
    if (status === 408) return new ChatModelError(message, "timeout", { status });
    if (status >= 500)
      return new ChatModelError(message, "server", { status, retryAfterMs: retryAfterMs(error.headers) });
    const hint =
      status === 401 || status === 403
        ? " (check the API key)"
        : status === 404
          ? " (check --base-url and --model)"
          : "";
    return new ChatModelError(message + hint, "client", { status });
  }
  if (error instanceof OpenAIError || error instanceof SyntaxError) {
    return new ChatModelError(`unreadable response from ${baseURL}: ${error.message}`, "protocol");
  }
  return new ChatModelError(`chat call failed: ${(error as Error)?.message ?? String(error)}`, "protocol");
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return ms;
  const seconds = Number.parseFloat(headers?.get("retry-after") ?? "");
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}
