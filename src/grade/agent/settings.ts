import { ConfigError } from "../../errors.ts";

/**
 * Agent-grader settings from the command line and the environment. The CLI calls this once, at its
 * edge, with `process.env`; nothing below reads the environment. Precedence: flags, then
 * environment variables, then the `--config` file, then defaults.
 */
export interface AgentFlags {
  baseUrl?: string;
  model?: string;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv?: string;
  passes?: number;
  maxTurns?: number;
  maxTokens?: number;
  /** Seconds per pass. */
  timeout?: number;
  transcripts?: string;
}

export const ENV = {
  baseUrl: "GAGAR_GRADER_BASE_URL",
  model: "GAGAR_GRADER_MODEL",
  apiKey: "GAGAR_GRADER_API_KEY",
} as const;

/** Options for the agent/ensemble grader factory: `config` overlaid with the environment, then the flags. */
export function agentOptions(
  flags: AgentFlags,
  env: Record<string, string | undefined>,
  config: Record<string, unknown> = {},
): Record<string, unknown> {
  let apiKey = env[ENV.apiKey] || undefined;
  if (flags.apiKeyEnv) {
    apiKey = env[flags.apiKeyEnv];
    if (!apiKey)
      throw new ConfigError(
        `--api-key-env ${flags.apiKeyEnv}: that environment variable is not set or empty`,
      );
  }
  const layers: Record<string, unknown> = {
    baseUrl: flags.baseUrl ?? (env[ENV.baseUrl] || undefined),
    model: flags.model ?? (env[ENV.model] || undefined),
    apiKey,
    passes: flags.passes,
    maxTurns: flags.maxTurns,
    maxTokens: flags.maxTokens,
    timeoutSec: flags.timeout,
    transcripts: flags.transcripts,
  };
  return { ...config, ...Object.fromEntries(Object.entries(layers).filter(([, v]) => v !== undefined)) };
}
