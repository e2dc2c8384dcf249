import { ConfigError } from "../errors.ts";
import { agentGraderFactory } from "./agent/factory.ts";
import { createStaticGrader } from "./static/grader.ts";
import type { Grader } from "./types.ts";

/**
 * Graders by name, each built from an options object (the parsed `--config` file, or {}), so the CLI,
 * the pipeline and the server choose a grader with one string. A factory validates its own options
 * and throws ConfigError on bad ones.
 */
export type GraderFactory = (options?: Record<string, unknown>) => Grader;

const factories = new Map<string, GraderFactory>([
  ["static", (options) => createStaticGrader(options)],
  // The paper's tool-using model grader, and the same with the static findings as hints (issue 6).
  ["agent", agentGraderFactory("agent")],
  ["ensemble", agentGraderFactory("ensemble")],
]);

export function registerGrader(name: string, factory: GraderFactory): void {
  if (factories.has(name)) throw new ConfigError(`a grader named "${name}" is already registered`);
  factories.set(name, factory);
}

/** Registered names, sorted, for help texts and error messages. */
export function graderNames(): string[] {
  return [...factories.keys()].sort();
}

export function createGrader(name: string, options: Record<string, unknown> = {}): Grader {
  const factory = factories.get(name);
  if (!factory) throw new ConfigError(`unknown grader "${name}"; known graders: ${graderNames().join(", ")}`);
  return factory(options);
}
