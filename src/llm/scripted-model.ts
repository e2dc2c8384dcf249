import { InvariantError } from "../errors.ts";
import {
  type CallOptions,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  estimateTokens,
  type FinishReason,
  type TokenTrace,
  type ToolCall,
  type Usage,
} from "./chat-model.ts";
import { ChatModelError } from "./chat-model-error.ts";

/**
 * A ChatModel that plays a script and records every call: the double for unit tests of anything
 * built on the seam (the grader's session loop, later the policy agent).
 *
 * A step is a reply, or a function of the request that returns one (so a step can react to what
 * the agent sent, e.g. rank by the patches it was shown). Running past the script is a test bug and
 * throws InvariantError.
 */
export type ScriptedReply =
  | {
      content?: string | null;
      /** `arguments` that is not a string is JSON-encoded; a string is sent as is (malformed JSON included). */
      toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
      /** Defaults: prompt = characters/4 of the request, completion = characters/4 of the reply. */
      usage?: Partial<Usage>;
      finishReason?: FinishReason;
      /** Returned as the reply's tokens when the request asked for logprobs, as a server would. */
      tokens?: TokenTrace;
    }
  | { error: ChatModelError }
  /** Never answers: the call ends only by its signal or its `timeoutMs`, like a hung server. */
  | { hang: true };

export type ScriptStep =
  | ScriptedReply
  | ((request: ChatRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

export interface RecordedCall {
  request: ChatRequest;
  options: CallOptions;
}

export class ScriptedChatModel implements ChatModel {
  readonly calls: RecordedCall[] = [];
  private readonly steps: ScriptStep[];
  private readonly repeat:
    | ((request: ChatRequest, index: number) => ScriptedReply | Promise<ScriptedReply>)
    | undefined;

  /** `steps` plays once in order; a function answers every call. */
  constructor(
    steps: ScriptStep[] | ((request: ChatRequest, index: number) => ScriptedReply | Promise<ScriptedReply>),
    readonly modelId = "scripted",
  ) {
    this.steps = Array.isArray(steps) ? steps : [];
    this.repeat = Array.isArray(steps) ? undefined : steps;
  }

  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    const index = this.calls.length;
    this.calls.push({ request: structuredClone(request), options: { timeoutMs: options.timeoutMs } });
    const step = this.repeat ?? this.steps[index];
    if (step === undefined)
      throw new InvariantError(
        `scripted model has ${this.steps.length} steps; call ${index + 1} is past the script`,
      );
    const reply = typeof step === "function" ? await step(request, index) : step;
    if ("error" in reply) throw reply.error;
    if ("hang" in reply) return hang(options);
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${index}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    }));
    const message = {
      role: "assistant" as const,
      content: reply.content ?? null,
      ...(toolCalls.length ? { toolCalls } : {}),
    };
    const usage: Usage = {
      promptTokens: reply.usage?.promptTokens ?? estimateTokens(JSON.stringify(request.messages)),
      completionTokens: reply.usage?.completionTokens ?? estimateTokens(JSON.stringify(message)),
    };
    return {
      message,
      finishReason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
      usage,
      ...(request.logprobs && reply.tokens ? { tokens: structuredClone(reply.tokens) } : {}),
      attempts: 1,
      latencyMs: 0,
    };
  }
}

function hang(options: CallOptions): Promise<never> {
  return new Promise((_, reject) => {
    const { signal } = options;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => fail("aborted");
    const fail = (kind: "aborted" | "timeout") => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(new ChatModelError(`scripted hang ended: ${kind}`, kind));
    };
    if (signal?.aborted) return fail("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (options.timeoutMs !== undefined) timer = setTimeout(() => fail("timeout"), options.timeoutMs).unref();
  });
}
