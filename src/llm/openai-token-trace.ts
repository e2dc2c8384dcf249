import type { TokenTrace } from "./chat-model.ts";

/**
 * The token-level part of the OpenAI chat-completions wire format, as the servers gagar targets
 * extend it (a companion of openai-chat-model.ts, which alone sends requests).
 *
 * How much a server is asked for is a ladder, from most to least:
 * - `ids`: standard `logprobs: true`, plus `return_token_ids: true` (vLLM ≥ 0.10.2 and SGLang: the
 *   prompt's and the reply's token ids) and `return_tokens_as_token_ids: true` (older vLLM: logprob
 *   tokens written as `token_id:N`, so the ids survive even without `return_token_ids`);
 * - `logprobs`: standard `logprobs: true` only (OpenAI, llama.cpp, Ollama);
 * - `none`: nothing token-level.
 * Servers that ignore unknown fields simply answer without them; a server that rejects them (HTTP
 * 400/422, as OpenAI does for unknown fields) is asked again one rung lower.
 */
export type TokenRequestLevel = "ids" | "logprobs" | "none";

export const TOKEN_REQUEST_LEVELS: readonly TokenRequestLevel[] = ["ids", "logprobs", "none"];

/** The request fields of a rung of the ladder. */
export function tokenRequestFields(level: TokenRequestLevel): Record<string, unknown> {
  switch (level) {
    case "ids":
      return { logprobs: true, return_token_ids: true, return_tokens_as_token_ids: true };
    case "logprobs":
      return { logprobs: true };
    case "none":
      return {};
  }
}

const TOKEN_ID_TEXT = /^token_id:(\d+)$/;

/**
 * What one completion says about its tokens, read from every shape the servers use:
 * - sampled ids: `choices[0].token_ids` (vLLM, SGLang), `sglext.output_ids[0]` or
 *   `sglext.completion_token_ids[0]` (SGLang's extension object), or logprob tokens of the form
 *   `token_id:N` (vLLM's `return_tokens_as_token_ids`);
 * - prompt ids: top-level `prompt_token_ids` (vLLM), `choices[0].prompt_token_ids` (SGLang),
 *   `sglext.input_ids` or `sglext.prompt_token_ids`;
 * - logprobs and token texts: `choices[0].logprobs.content[i].{logprob, token}` (the standard).
 * Malformed pieces are left out rather than guessed at. Logprobs whose count differs from the ids'
 * are dropped: an unaligned logprob is worse than none for an importance ratio.
 */
export function tokenTraceOf(completion: unknown, choiceIndex = 0): TokenTrace | undefined {
  const body = record(completion);
  const choice = record(array(body?.choices)?.[choiceIndex]);
  const ext = record(body?.sglext);
  const content = array(record(choice?.logprobs)?.content);

  let logprobs = content?.map((c) => record(c)?.logprob);
  if (!logprobs?.every((v): v is number => typeof v === "number" && Number.isFinite(v))) logprobs = undefined;
  let tokens = content?.map((c) => record(c)?.token);
  if (!tokens?.every((t): t is string => typeof t === "string")) tokens = undefined;

  let tokenIds =
    ids(choice?.token_ids) ??
    ids(array(ext?.output_ids)?.[choiceIndex]) ??
    ids(array(ext?.completion_token_ids)?.[choiceIndex]);
  const idsFromTexts = tokens?.map((t) => TOKEN_ID_TEXT.exec(t)?.[1]);
  if (tokens && idsFromTexts?.every((id) => id !== undefined)) {
    tokenIds ??= idsFromTexts.map(Number);
    // The texts are only the ids again.
    tokens = undefined;
  }
  const promptTokenIds =
    ids(body?.prompt_token_ids) ??
    ids(choice?.prompt_token_ids) ??
    ids(ext?.input_ids) ??
    ids(ext?.prompt_token_ids);

  if (tokenIds && logprobs && logprobs.length !== tokenIds.length) {
    logprobs = undefined;
    tokens = undefined;
  }
  const trace: TokenTrace = {
    ...(promptTokenIds ? { promptTokenIds } : {}),
    ...(tokenIds ? { tokenIds } : {}),
    ...(tokens ? { tokens } : {}),
    ...(logprobs ? { logprobs } : {}),
  };
  return Object.keys(trace).length ? trace : undefined;
}

function ids(value: unknown): number[] | undefined {
  const list = array(value);
  return list?.every((v): v is number => Number.isSafeInteger(v) && (v as number) >= 0) ? list : undefined;
}

function array(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
