import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../errors.ts";
import { agentOptions, ENV } from "../grade/agent/settings.ts";
import { graderNames } from "../grade/registry.ts";
import { isAgentGrader } from "./commands/grader.ts";
import { numberIn } from "./options.ts";

/** The environment variable that holds the service's bearer token unless --token-env names another. */
export const DEFAULT_TOKEN_ENV = "GAGAR_TOKEN";

/** Flags that `gagar serve` and `gagar worker` share. */
export interface SharedServiceFlags {
  queuePrefix: string;
  lockSec: number;
  graceSec: number;
  graderConfig?: string;
  tokenEnv?: string;
}

export function addSharedServiceOptions(command: Command): Command {
  return command
    .option("--queue-prefix <prefix>", "key prefix in Redis, to share one Redis between deployments", "gagar")
    .option(
      "--lock-sec <s>",
      "a running job's lock; a job whose process died is picked up again once it expires",
      numberIn(1, 3600, true),
      30,
    )
    .option(
      "--grace-sec <s>",
      "on SIGTERM, time running jobs get to finish before they are handed back to the queue",
      numberIn(0, 3600, true),
      30,
    )
    .option(
      "--grader-config <file>",
      'JSON options per model grader, e.g. {"agent": {"baseUrl": "http://gpu:8000/v1", "model": "grader"}}; ' +
        `${ENV.baseUrl}/${ENV.model}/${ENV.apiKey} apply to agent and ensemble`,
    )
    .option(
      "--token-env <var>",
      `environment variable holding the service's bearer token (default ${DEFAULT_TOKEN_ENV})`,
    );
}

/** The bearer token from the environment (read here, at the CLI edge), or undefined. */
export function tokenFrom(
  flags: { tokenEnv?: string },
  env: Record<string, string | undefined>,
): string | undefined {
  const name = flags.tokenEnv ?? DEFAULT_TOKEN_ENV;
  const token = env[name] || undefined;
  if (flags.tokenEnv && !token)
    throw new ConfigError(`--token-env ${name}: that environment variable is not set or empty`);
  return token;
}

/**
 * Options per model grader this process can run: the --grader-config file's, with the
 * environment's model settings layered over agent and ensemble. A model grader is offered only
 * when it ends up with a server URL.
 */
export function graderSettings(
  file: string | undefined,
  env: Record<string, string | undefined>,
): Record<string, Record<string, unknown>> {
  let config: Record<string, unknown> = {};
  if (file) {
    try {
      config = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new ConfigError(`--grader-config ${file}: ${(e as Error).message}`);
    }
    if (config === null || typeof config !== "object" || Array.isArray(config))
      throw new ConfigError(`--grader-config ${file}: expected a JSON object of grader name → options`);
  }
  const settings: Record<string, Record<string, unknown>> = {};
  for (const [name, options] of Object.entries(config)) {
    if (!isAgentGrader(name))
      throw new ConfigError(
        `--grader-config ${file}: "${name}" is not a model grader (agent, ensemble); static grader options come with each request`,
      );
    if (options === null || typeof options !== "object" || Array.isArray(options))
      throw new ConfigError(`--grader-config ${file}: the options of "${name}" must be a JSON object`);
    settings[name] = options as Record<string, unknown>;
  }
  for (const name of graderNames().filter(isAgentGrader)) {
    const merged = agentOptions({}, env, settings[name] ?? {});
    if (merged.baseUrl) settings[name] = merged;
    else delete settings[name];
  }
  return settings;
}

/** Where a worker keeps the task packs it fetched: `$XDG_CACHE_HOME/gagar/packs`. */
export function defaultPackCache(env: Record<string, string | undefined>): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "gagar", "packs");
}

/**
 * Resolves when SIGTERM or SIGINT arrives (the caller then shuts down gracefully); a second signal
 * exits at once. Returns the promise and a function removing the handlers.
 */
export function untilSignal(log: (line: string) => void): {
  signal: Promise<NodeJS.Signals>;
  dispose(): void;
} {
  let resolve: (s: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((r) => {
    resolve = r;
  });
  let received = false;
  const on = (s: NodeJS.Signals) => {
    if (received) {
      log(`${s} again: exiting now`);
      process.exit(s === "SIGINT" ? 130 : 143);
    }
    received = true;
    resolve(s);
  };
  process.on("SIGTERM", on);
  process.on("SIGINT", on);
  return {
    signal,
    dispose: () => {
      process.off("SIGTERM", on);
      process.off("SIGINT", on);
    },
  };
}
