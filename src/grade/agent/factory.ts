import { z } from "zod";
import { LIMITS } from "../../config/limits.ts";
import { ConfigError } from "../../errors.ts";
import { createOpenAIChatModel } from "../../llm/openai-chat-model.ts";
import { DEFAULT_RETRY_POLICY } from "../../llm/retry.ts";
import type { GraderFactory } from "../registry.ts";
import { createStaticGrader } from "../static/grader.ts";
import { createAgentGrader } from "./agent-grader.ts";
import { AGENT_DEFAULTS } from "./defaults.ts";
import { createTranscriptDir } from "./transcript.ts";

/**
 * Options of the `agent` and `ensemble` graders, as the registry receives them (a `--config` file
 * merged with the CLI's flags and environment, see settings.ts). Unknown keys are rejected.
 */
export const AgentGraderConfig = z.strictObject({
  baseUrl: z.string().url().optional(),
  model: z.string().min(1).optional(),
  apiKey: z.string().optional(),
  passes: z.number().int().min(1).max(LIMITS.graderPasses.max).default(AGENT_DEFAULTS.passes),
  maxTurns: z.number().int().min(1).max(LIMITS.modelTurns.max).default(AGENT_DEFAULTS.maxTurns),
  maxTokens: z.number().int().min(1).max(LIMITS.sessionTokens.max).default(AGENT_DEFAULTS.maxTokens),
  /** Wall time of one pass, in seconds. */
  timeoutSec: z.number().positive().max(LIMITS.sessionSeconds.max).default(AGENT_DEFAULTS.timeoutSec),
  maxOutputTokens: z.number().int().min(1).default(AGENT_DEFAULTS.maxOutputTokens),
  temperature: z.number().min(0).max(2).default(AGENT_DEFAULTS.temperature),
  /** Retries of one model call on connection errors, 429 and 5xx. */
  retries: z.number().int().min(0).default(DEFAULT_RETRY_POLICY.retries),
  /** Directory for session transcripts (JSONL); none are kept without it. */
  transcripts: z.string().min(1).optional(),
  seed: z.string().default(""),
  /** Options of the static grader used for hints, critical findings and the fallback. */
  static: z.record(z.string(), z.unknown()).default({}),
});
export type AgentGraderConfig = z.input<typeof AgentGraderConfig>;

/** The registry's factory for `mode`: validates options, then wires model, static grader and transcripts. */
export function agentGraderFactory(mode: "agent" | "ensemble"): GraderFactory {
  return (options = {}) => {
    const parsed = AgentGraderConfig.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? ` at ${issue.path.map(String).join(".")}` : "";
      throw new ConfigError(`${mode} grader options${where}: ${issue.message}`);
    }
    const c = parsed.data;
    if (!c.baseUrl) {
      throw new ConfigError(
        `the ${mode} grader needs a model server: pass --base-url URL (e.g. http://127.0.0.1:8000/v1) or set GAGAR_GRADER_BASE_URL`,
      );
    }
    if (!c.model)
      throw new ConfigError(
        `the ${mode} grader needs a model name: pass --model NAME or set GAGAR_GRADER_MODEL`,
      );
    return createAgentGrader({
      model: createOpenAIChatModel({
        baseURL: c.baseUrl,
        model: c.model,
        apiKey: c.apiKey,
        retry: { ...DEFAULT_RETRY_POLICY, retries: c.retries },
      }),
      staticGrader: createStaticGrader(c.static),
      mode,
      passes: c.passes,
      budget: { maxTurns: c.maxTurns, maxTokens: c.maxTokens, timeoutMs: c.timeoutSec * 1000 },
      maxOutputTokens: c.maxOutputTokens,
      temperature: c.temperature,
      seed: c.seed,
      transcripts: c.transcripts ? createTranscriptDir(c.transcripts) : undefined,
    });
  };
}
