import type { ChatMessage, ChatModel, ToolSpec, Usage } from "../../llm/chat-model.ts";
import type { ToolExecutor } from "./tool-executor.ts";

/**
 * Why a rollout ended: the agent called `submit`; it used up `maxTurns`; a reply hit the token cap
 * (`length`: its tool calls may be cut off, so none of them run); or it answered without a tool
 * call (`stop`).
 */
export type PolicyFinishReason = "submit" | "max_turns" | "length" | "stop";

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
  signal?: AbortSignal;
}

export interface AgentLoopResult {
  messages: ChatMessage[];
  /** Model calls made. */
  turns: number;
  toolCalls: number;
  finishReason: PolicyFinishReason;
  /** Summed over all calls; `estimated` when any call's usage was. */
  usage: Usage;
  /** The last call's usage: its prompt plus completion is the trajectory's length. */
  lastUsage: Usage | undefined;
}

/**
 * The agent's tool loop: call the model, run its tool calls in order (several in one reply are
 * each run and each answered, so the transcript stays valid for the chat format), repeat. Model
 * failures (a ChatModelError after the client's retries, or an abort) reject: they are the
 * server's fault, not the policy's, and must not turn into a rollout.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const messages = [...options.messages];
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  let lastUsage: Usage | undefined;
  let toolCalls = 0;
  for (let turn = 1; turn <= options.maxTurns; turn++) {
    options.signal?.throwIfAborted();
    const response = await options.model.complete(
      {
        messages,
        tools: options.tools,
        maxOutputTokens: options.maxOutputTokens,
        temperature: options.temperature,
      },
      { timeoutMs: options.timeoutMs, signal: options.signal },
    );
    messages.push(response.message);
    lastUsage = response.usage;
    usage.promptTokens += response.usage.promptTokens;
    usage.completionTokens += response.usage.completionTokens;
    if (response.usage.estimated) usage.estimated = true;
    const finish = (finishReason: PolicyFinishReason): AgentLoopResult => ({
      messages,
      turns: turn,
      toolCalls,
      finishReason,
      usage,
      lastUsage,
    });
    if (response.finishReason === "length") return finish("length");
    const calls = response.message.toolCalls ?? [];
    if (calls.length === 0) return finish("stop");
    let submitted = false;
    for (const call of calls) {
      toolCalls++;
      if (submitted) {
        messages.push({
          role: "tool",
          toolCallId: call.id,
          content: "Error: not run, because submit ended the session.",
        });
        continue;
      }
      options.signal?.throwIfAborted();
      const outcome = await options.execute(call);
      messages.push({ role: "tool", toolCallId: call.id, content: outcome.output });
      submitted = outcome.submitted;
    }
    if (submitted) return finish("submit");
  }
  return { messages, turns: options.maxTurns, toolCalls, finishReason: "max_turns", usage, lastUsage };
}
