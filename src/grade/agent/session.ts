import {
  type ChatMessage,
  type ChatModel,
  estimateTokens,
  type FinishReason,
  type ToolCall,
  type ToolMessage,
  type ToolSpec,
  type Usage,
} from "../../llm/chat-model.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";
import { parseSubmission, SUBMIT_TOOL, type Submission } from "./protocol.ts";
import { TOOL_ERROR_PREFIX } from "./toolbox.ts";

/**
 * One grading session: the model inspects the candidates with tools until it submits a valid
 * ranking or a budget runs out. Tool calls of one assistant message run concurrently and their
 * results go back in call order. An invalid submission is returned as a tool error and the model
 * may try again; only a failure of the model server ends the session early.
 */
export interface SessionBudget {
  /** Model calls in the session. */
  maxTurns: number;
  /** Prompt + completion tokens over all calls (every call re-sends the history, so this grows fast). */
  maxTokens: number;
  /** Wall time of the whole session, tool runs included. */
  timeoutMs: number;
}

export interface SessionInput {
  model: ChatModel;
  system: string;
  user: string;
  tools: ToolSpec[];
  /** The candidate labels a submission must rank. */
  labels: string[];
  execute(call: ToolCall): Promise<string>;
  budget: SessionBudget;
  /** Cap on the tokens one model call may generate. */
  maxOutputTokens: number;
  temperature?: number;
  signal?: AbortSignal;
  now?: () => number;
}

export interface TurnRecord {
  usage: Usage;
  attempts: number;
  latencyMs: number;
  finishReason: FinishReason;
  toolCalls: number;
}

/** Why a session ended without a ranking: a budget, the model server, or the caller. */
export type FailureCause = "turns" | "tokens" | "time" | "server" | "aborted";

export type SessionOutcome =
  | { kind: "submitted"; submission: Submission }
  | { kind: "failed"; cause: FailureCause; reason: string };

export interface SessionRecord {
  messages: ChatMessage[];
  turns: TurnRecord[];
  usage: { promptTokens: number; completionTokens: number; requests: number };
  latencyMs: number;
  toolErrors: number;
  invalidSubmissions: number;
  outcome: SessionOutcome;
}

export const NUDGE_USE_TOOLS = "Continue with the tools, and finish by calling submit_ranking.";
export const NUDGE_LAST_TURN = "You have one turn left: call submit_ranking now with your best ranking.";

export async function runSession(input: SessionInput): Promise<SessionRecord> {
  const now = input.now ?? Date.now;
  const started = now();
  const deadline = started + input.budget.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("session time budget")), input.budget.timeoutMs);
  const onAbort = () => controller.abort(input.signal?.reason);
  input.signal?.addEventListener("abort", onAbort, { once: true });

  const messages: ChatMessage[] = [
    { role: "system", content: input.system },
    { role: "user", content: input.user },
  ];
  const record: SessionRecord = {
    messages,
    turns: [],
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
    latencyMs: 0,
    toolErrors: 0,
    invalidSubmissions: 0,
    outcome: {
      kind: "failed",
      cause: "turns",
      reason: `no valid submit_ranking within ${input.budget.maxTurns} turns`,
    },
  };
  const fail = (cause: FailureCause, reason: string): SessionOutcome => ({ kind: "failed", cause, reason });
  const used = () => record.usage.promptTokens + record.usage.completionTokens;

  try {
    for (let turn = 1; turn <= input.budget.maxTurns; turn++) {
      if (input.signal?.aborted) return done(fail("aborted", "grading was cancelled"));
      const promptEstimate = estimateTokens(JSON.stringify(messages) + JSON.stringify(input.tools));
      const room = input.budget.maxTokens - used() - promptEstimate;
      if (room <= 0) {
        return done(
          fail(
            "tokens",
            `token budget of ${input.budget.maxTokens} spent (${used()} used) without a valid submit_ranking`,
          ),
        );
      }
      const remaining = deadline - now();
      if (remaining <= 0) return done(timeFailure());

      let response: Awaited<ReturnType<ChatModel["complete"]>>;
      try {
        response = await input.model.complete(
          {
            messages,
            tools: input.tools,
            maxOutputTokens: Math.min(input.maxOutputTokens, room),
            temperature: input.temperature,
          },
          { signal: controller.signal, timeoutMs: remaining },
        );
      } catch (error) {
        if (!(error instanceof ChatModelError)) throw error;
        record.usage.requests += error.options.attempts ?? 1;
        if (input.signal?.aborted) return done(fail("aborted", "grading was cancelled"));
        if (now() >= deadline || controller.signal.aborted) return done(timeFailure());
        return done(fail("server", `model server failed: ${error.message}`));
      }
      const calls = recordTurn(record, response);

      if (!calls.length) {
        messages.push({
          role: "user",
          content: turn === input.budget.maxTurns - 1 ? NUDGE_LAST_TURN : NUDGE_USE_TOOLS,
        });
        continue;
      }
      const { results, submission } = await runCalls(input, calls);
      countToolErrors(record, calls, results);
      messages.push(...results);
      if (submission) return done({ kind: "submitted", submission });
      if (turn === input.budget.maxTurns - 1) messages.push({ role: "user", content: NUDGE_LAST_TURN });
    }
    return done(record.outcome);
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener("abort", onAbort);
  }

  function timeFailure(): SessionOutcome {
    return fail("time", `time budget of ${input.budget.timeoutMs} ms spent without a valid submit_ranking`);
  }

  function done(outcome: SessionOutcome): SessionRecord {
    record.outcome = outcome;
    record.latencyMs = now() - started;
    return record;
  }
}

/** Keeps one model response in the record (its usage, its turn, the message) and returns its tool calls. */
function recordTurn(record: SessionRecord, response: Awaited<ReturnType<ChatModel["complete"]>>): ToolCall[] {
  const calls = response.message.toolCalls ?? [];
  record.turns.push({
    usage: response.usage,
    attempts: response.attempts,
    latencyMs: response.latencyMs,
    finishReason: response.finishReason,
    toolCalls: calls.length,
  });
  record.usage.promptTokens += response.usage.promptTokens;
  record.usage.completionTokens += response.usage.completionTokens;
  record.usage.requests += response.attempts;
  record.messages.push(response.message);
  return calls;
}

/** Counts the tool errors of one message's results, and among them the rejected submissions. */
function countToolErrors(record: SessionRecord, calls: ToolCall[], results: ToolMessage[]): void {
  for (const r of results) if (r.content.startsWith(TOOL_ERROR_PREFIX)) record.toolErrors++;
  record.invalidSubmissions += results.filter(
    (r, i) => calls[i]!.name === SUBMIT_TOOL && r.content.startsWith(TOOL_ERROR_PREFIX),
  ).length;
}

/** Runs one message's tool calls; a submission counts only if it is valid and the only one. */
async function runCalls(
  input: SessionInput,
  calls: ToolCall[],
): Promise<{ results: ToolMessage[]; submission: Submission | undefined }> {
  const submits = calls.filter((c) => c.name === SUBMIT_TOOL).length;
  let submission: Submission | undefined;
  const contents = await Promise.all(
    calls.map(async (call) => {
      if (call.name !== SUBMIT_TOOL) return input.execute(call);
      if (submits > 1)
        return `${TOOL_ERROR_PREFIX}submit_ranking was called ${submits} times in one message; call it once`;
      const parsed = parseSubmission(call.arguments, input.labels);
      if (!parsed.ok) return TOOL_ERROR_PREFIX + parsed.error;
      submission = parsed.value;
      return "ranking accepted";
    }),
  );
  return {
    results: calls.map((call, i) => ({ role: "tool", toolCallId: call.id, content: contents[i]! })),
    submission,
  };
}
