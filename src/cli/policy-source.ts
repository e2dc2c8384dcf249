import type { Config } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import { createOpenAIChatModel } from "../llm/openai-chat-model.ts";
import { PolicySource } from "../rollout/policy/policy-source.ts";
import type { RolloutSource } from "../rollout/types.ts";
import type { SandboxBackend } from "../sandbox/types.ts";

/** The environment variable read for the policy server's key when the config names none. */
export const DEFAULT_POLICY_KEY_ENV = "GAGAR_POLICY_API_KEY";

/**
 * Builds the `policy` rollout source of a config: the policy server behind the OpenAI-compatible
 * client, its tools run in `sandbox`. The API key is read here, once, at the CLI edge.
 */
export function createPolicySourceFromConfig(
  config: Config,
  sandbox: SandboxBackend,
  warn?: (message: string) => void,
): RolloutSource {
  const rollouts = config.rollouts;
  if (rollouts.source !== "policy") throw new ConfigError('rollouts.source is not "policy"');
  const keyEnv = rollouts.apiKeyEnv ?? DEFAULT_POLICY_KEY_ENV;
  if (rollouts.apiKeyEnv && !process.env[keyEnv]) {
    throw new ConfigError(`rollouts.apiKeyEnv names ${keyEnv}, which is not set in the environment`);
  }
  const model = createOpenAIChatModel({
    baseURL: rollouts.baseUrl,
    model: rollouts.model,
    apiKey: process.env[keyEnv],
    requestTimeoutMs: rollouts.timeoutSec * 1000,
  });
  return new PolicySource({
    model,
    sandbox,
    maxTurns: rollouts.maxTurns,
    maxTokens: rollouts.maxTokens,
    timeoutSec: rollouts.timeoutSec,
    temperature: rollouts.temperature,
    concurrency: rollouts.concurrency,
    commandTimeoutSec: rollouts.commandTimeoutSec,
    rolloutTimeoutSec: rollouts.rolloutTimeoutSec,
    workspaceBytes: rollouts.workspaceBytes,
    workspaceInodes: rollouts.workspaceInodes,
    scratchDir: rollouts.scratchDir,
    logprobs: rollouts.logprobs,
    warn,
  });
}
