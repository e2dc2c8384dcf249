import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { type ConfigError, InputError } from "../errors.ts";
import { parseRecord } from "../io/validate.ts";
import { Config, type ConfigInput } from "./schema.ts";

/**
 * Checks of a config's names against registries that live above config (a config knows no estimator):
 * each throws a ConfigError for a name it does not know. pipeline/config-checks.ts has the real ones.
 */
export interface ConfigChecks {
  estimator?: (name: string) => unknown;
}

/**
 * Reads and validates a config file: unknown keys, bad values and a missing task pack are errors
 * naming the file and the key. Relative paths resolve against the config file's folder.
 */
export function loadConfig(file: string, checks: ConfigChecks = {}): Config {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new InputError(
      { file },
      (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(e),
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError({ file }, `not valid JSON (${(e as Error).message})`);
  }
  return resolveConfig(json, file, dirname(resolve(file)), checks);
}

/** Validates a config object (from a file or built in code) and resolves its paths against `baseDir`. */
export function resolveConfig(
  input: ConfigInput | unknown,
  source: string,
  baseDir: string,
  checks: ConfigChecks = {},
): Config {
  const config = parseRecord(Config, input, { file: source });
  const at = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  config.tasks = at(config.tasks);
  config.out = at(config.out);
  if (config.rollouts.source === "replay") config.rollouts.replayDir = at(config.rollouts.replayDir);
  if (config.rollouts.source === "policy" && config.rollouts.scratchDir !== undefined) {
    config.rollouts.scratchDir = at(config.rollouts.scratchDir);
    if (!existsSync(config.rollouts.scratchDir) || !statSync(config.rollouts.scratchDir).isDirectory()) {
      throw new InputError(
        { file: source, field: "rollouts.scratchDir" },
        `scratch folder ${config.rollouts.scratchDir} does not exist`,
      );
    }
  }
  if (!existsSync(config.tasks) || !statSync(config.tasks).isDirectory()) {
    throw new InputError({ file: source, field: "tasks" }, `task pack folder ${config.tasks} does not exist`);
  }
  if (config.rollouts.source === "replay" && !existsSync(config.rollouts.replayDir)) {
    throw new InputError(
      { file: source, field: "rollouts.replayDir" },
      `recorded rollouts folder ${config.rollouts.replayDir} does not exist`,
    );
  }
  try {
    checks.estimator?.(config.advantage.estimator);
  } catch (e) {
    throw new InputError({ file: source, field: "advantage.estimator" }, (e as ConfigError).message);
  }
  return config;
}
