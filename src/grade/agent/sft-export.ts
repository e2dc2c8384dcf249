import type { ChatMessage } from "../../llm/chat-model.ts";
import { toOpenAIMessages, toOpenAITools } from "../../llm/openai-chat-model.ts";
import { labelMap } from "./labels.ts";
import { TOOL_ERROR_PREFIX } from "./toolbox.ts";
import type { GraderTranscript, TranscriptSession } from "./transcript.ts";

/**
 * Turns grader transcripts into SFT data for the next grader model: OpenAI chat fine-tuning JSONL
 * with tools (`{"messages": [...], "tools": [...]}`, what common SFT trainers read).
 *
 * A session is kept only if it is worth imitating:
 * - it ended in a valid submit_ranking;
 * - its group did not fall back to the static grader (unless `includeFallbacks`);
 * - its group's passes agree: position consistency ≥ `minConsistency` (a single-pass group has no
 *   consistency and is kept only when `minConsistency` is 0);
 * - it does not contradict a critical static finding: no candidate the static grader found
 *   critical (test tampering, hard-coded outputs) sits in the session's top tier.
 * Inside a kept session, assistant turns the model had to be corrected for (a tool call that
 * returned an error, prose without tool calls) get `weight: 0`, so the model learns the recovery
 * but not the mistake.
 */
export interface SftFilter {
  minConsistency: number;
  includeFallbacks: boolean;
}

/** Strict by default: only groups whose shuffled passes fully agree. */
export const DEFAULT_SFT_FILTER: SftFilter = { minConsistency: 1, includeFallbacks: false };

/** A chat message in the OpenAI format; `weight: 0` excludes an assistant turn from the loss. */
export type SftMessage = ReturnType<typeof toOpenAIMessages>[number] & { weight?: 0 | 1 };

export interface SftExample {
  messages: SftMessage[];
  tools: ReturnType<typeof toOpenAITools>;
}

export type DropReason = "no-submission" | "fallback" | "inconsistent" | "contradicts-static";

export interface SftSelection {
  examples: SftExample[];
  sessions: number;
  dropped: Record<DropReason, number>;
}

export function selectSftExamples(
  transcripts: GraderTranscript[],
  filter: SftFilter = DEFAULT_SFT_FILTER,
): SftSelection {
  const selection: SftSelection = {
    examples: [],
    sessions: 0,
    dropped: { "no-submission": 0, fallback: 0, inconsistent: 0, "contradicts-static": 0 },
  };
  for (const t of transcripts) {
    const consistency = t.result.consistency;
    const consistent =
      filter.minConsistency <= 0 || (consistency !== null && consistency >= filter.minConsistency);
    for (const session of t.sessions) {
      selection.sessions++;
      const reason = dropReason(t, session, filter, consistent);
      if (reason) selection.dropped[reason]++;
      else selection.examples.push(toSftExample(t, session));
    }
  }
  return selection;
}

function dropReason(
  t: GraderTranscript,
  s: TranscriptSession,
  filter: SftFilter,
  consistent: boolean,
): DropReason | null {
  if (s.outcome.kind !== "submitted") return "no-submission";
  if (t.result.fallback && !filter.includeFallbacks) return "fallback";
  if (!consistent) return "inconsistent";
  const idOf = labelMap(s.order).idOf;
  const top = s.outcome.submission.ranking[0] ?? [];
  if (top.some((label) => t.staticCritical.includes(idOf.get(label) ?? ""))) return "contradicts-static";
  return null;
}

/** The session up to its accepting assistant message, in the OpenAI format, corrected turns weighted 0. */
export function toSftExample(t: GraderTranscript, s: TranscriptSession): SftExample {
  const messages = s.messages as ChatMessage[];
  const last = messages.map((m) => m.role).lastIndexOf("assistant");
  const kept = messages.slice(0, last + 1);
  const openai: SftMessage[] = toOpenAIMessages(kept);
  kept.forEach((m, i) => {
    if (m.role !== "assistant" || i === last) return;
    const corrected =
      !m.toolCalls?.length || followingToolResults(messages, i).some((r) => r.startsWith(TOOL_ERROR_PREFIX));
    if (corrected) openai[i] = { ...openai[i]!, weight: 0 } as SftMessage;
  });
  return { messages: openai, tools: toOpenAITools(t.tools) };
}

function followingToolResults(messages: ChatMessage[], assistantIndex: number): string[] {
  const out: string[] = [];
  for (let i = assistantIndex + 1; i < messages.length && messages[i]!.role === "tool"; i++)
    out.push(messages[i]!.content as string);
  return out;
}
