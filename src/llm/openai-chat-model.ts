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
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from "./retry.ts";

/**
 * The one file that knows the OpenAI chat-completions wire format. Works with any server that
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

  return {
    modelId: options.model,
    async complete(request: ChatRequest, call: CallOptions = {}): Promise<ChatResponse> {
      const started = now();
      const deadline = call.timeoutMs === undefined ? undefined : started + call.timeoutMs;
      const body = toOpenAIRequest(options.model, request);
      const { value, attempts } = await withRetries(
        async () => {
          const timeout = Math.min(
            requestTimeoutMs,
            deadline === undefined ? requestTimeoutMs : deadline - now(),
          );
          if (timeout <= 0)
            throw new ChatModelError("call deadline passed before the request was sent", "timeout");
          try {
            return await client.chat.completions.create(body, {
              signal: call.signal,
              timeout,
              maxRetries: 0,
            });
          } catch (error) {
            throw toChatModelError(error, options.baseURL);
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
      return { ...fromOpenAICompletion(value, body), attempts, latencyMs: now() - started };
    },
  };
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
