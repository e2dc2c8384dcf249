import type { ChatMessage, ChatModel, TokenTrace, ToolSpec, Usage } from "../../llm/chat-model.ts";
import type { ToolExecutor } from "./tool-executor.ts";

/**
 * Why a rollout ended: the agent called `submit`; it used up `maxTurns`; a reply hit the token cap
 * (`length`: its tool calls may be cut off, so none of them run); it answered without a tool call
 * (`stop`); the rollout ran out of wall-clock time (`time_limit`); or its workspace quota was used up
 * (`workspace_full`). Every one of them ends with the patch so far, verified like any other.
 */
export type PolicyFinishReason = "submit" | "max_turns" | "length" | "stop" | "time_limit" | "workspace_full";

/** What the remaining calls of a reply are told when the rollout stops before running them. */
const NOT_RUN: Partial<Record<PolicyFinishReason, string>> = {
  submit: "Error: not run, because submit ended the session.",
  time_limit: "Error: not run, because the rollout reached its time limit.",
  workspace_full: "Error: not run, because the workspace is full (its disk quota is used up).",
};

export interface AgentLoopOptions {
  model: ChatModel;
  /** The conversation so far (system and user prompt); not modified. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  execute: ToolExecutor;
  maxTurns: number;
  maxOutputTokens: number;
  temperature: number;
  /** Per model call, retries included. */
  timeoutMs: number;
  /**
   * Wall-clock budget of the whole loop: a model call still waiting when it runs out is abandoned and
   * tools get at most the time left; the loop then ends with `time_limit`.
   */
  wallClockMs?: number;
  /** Ask the model for the sampled tokens' logprobs and ids (ChatRequest.logprobs). */
  logprobs?: boolean;
  /** Checked after every tool call: true ends the loop with `workspace_full`. */
  workspaceFull?: () => Promise<boolean>;
  signal?: AbortSignal;
}

/** The tokens the server reported for one assistant message of `messages`. */
export interface TurnTrace {
  /** Index of the assistant message in `messages`. */
  message: number;
  trace: TokenTrace;
}

export interface AgentLoopResult {
  messages: ChatMessage[];
  /** Model calls answered. */
  turns: number;
  toolCalls: number;
  finishReason: PolicyFinishReason;
  /** Summed over all calls; `estimated` when any call's usage was. */
  usage: Usage;
  /** The last call's usage: its prompt plus completion is the trajectory's length. */
  lastUsage: Usage | undefined;
  /** One entry per assistant message for which the server reported tokens, in order. */
  tokens: TurnTrace[];
}

/**
 * The agent's tool loop: call the model, run its tool calls in order (several in one reply are
 * each run and each answered, so the transcript stays valid for the chat format), repeat. Model
 * failures (a ChatModelError after the client's retries, or an abort) reject: they are the
 * server's fault, not the policy's, and must not turn into a rollout — except a call cut short by
 * the loop's own wall-clock budget, which ends the rollout with `time_limit`.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const deadline = options.wallClockMs === undefined ? undefined : Date.now() + options.wallClockMs;
  const timeUp = new AbortController();
  const timer =
    options.wallClockMs === undefined
      ? undefined
      : setTimeout(() => timeUp.abort(new Error("time limit")), options.wallClockMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeUp.signal]) : timeUp.signal;
  const messages = [...options.messages];
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const tokens: TurnTrace[] = [];
  let lastUsage: Usage | undefined;
  let toolCalls = 0;
  let turns = 0;
  const finish = (finishReason: PolicyFinishReason): AgentLoopResult => ({
    messages,
    turns,
    toolCalls,
    finishReason,
    usage,
    lastUsage,
    tokens,
  });
  try {
    while (turns < options.maxTurns) {
      options.signal?.throwIfAborted();
      if (timeUp.signal.aborted) return finish("time_limit");
      let response: Awaited<ReturnType<ChatModel["complete"]>>;
      try {
        response = await options.model.complete(
          {
            messages,
            tools: options.tools,
            maxOutputTokens: options.maxOutputTokens,
            temperature: options.temperature,
            ...(options.logprobs ? { logprobs: true } : {}),
          },
          { timeoutMs: options.timeoutMs, signal },
        );
      } catch (error) {
        if (timeUp.signal.aborted && !options.signal?.aborted) return finish("time_limit");
        throw error;
      }
      turns++;
      if (response.tokens) tokens.push({ message: messages.length, trace: response.tokens });
      messages.push(response.message);
      lastUsage = response.usage;
      usage.promptTokens += response.usage.promptTokens;
      usage.completionTokens += response.usage.completionTokens;
      if (response.usage.estimated) usage.estimated = true;
      if (response.finishReason === "length") return finish("length");
      const calls = response.message.toolCalls ?? [];
      if (calls.length === 0) return finish("stop");
      let stopped: PolicyFinishReason | undefined;
      for (const call of calls) {
        toolCalls++;
        if (!stopped && timeUp.signal.aborted) stopped = "time_limit";
        if (stopped) {
          messages.push({ role: "tool", toolCallId: call.id, content: NOT_RUN[stopped]! });
          continue;
        }
        options.signal?.throwIfAborted();
        const timeLeftMs = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
        const outcome = await options.execute(call, { timeLeftMs });
        messages.push({ role: "tool", toolCallId: call.id, content: outcome.output });
        if (outcome.submitted) stopped = "submit";
        else if (await options.workspaceFull?.()) stopped = "workspace_full";
      }
      if (stopped) return finish(stopped);
    }
    return finish("max_turns");
  } finally {
    clearTimeout(timer);
  }
}
