import { ConfigError } from "../errors.ts";
import { agentGraderFactory } from "./agent/factory.ts";
import type { GridPoint } from "./eval/leave-one-repo-out.ts";
import { createStaticGrader } from "./static/grader.ts";
import { staticTuningGrid } from "./static/tuning-grid.ts";
import type { Grader } from "./types.ts";

/**
 * Graders by name, each built from an options object (the parsed `--config` file, or {}), so the CLI,
 * the pipeline and the server choose a grader with one string. A factory validates its own options
 * and throws ConfigError on bad ones.
 */
export type GraderFactory = (options?: Record<string, unknown>) => Grader;

/** What a grader declares about itself, so that callers never recognise it by name. */
export interface GraderCapabilities {
  /** It asks a chat model: it needs a model server (a service configures it once, not per request). */
  needsModel: boolean;
  /** The options `gagar grader eval --loro` chooses between; absent when it has nothing to tune. */
  tuningGrid?: () => GridPoint[];
}

const NO_MODEL: GraderCapabilities = { needsModel: false };
const MODEL: GraderCapabilities = { needsModel: true };

const factories = new Map<string, { factory: GraderFactory; capabilities: GraderCapabilities }>([
  [
    "static",
    {
      factory: (options) => createStaticGrader(options),
      capabilities: { ...NO_MODEL, tuningGrid: staticTuningGrid },
    },
  ],
  // The paper's tool-using model grader, and the same with the static findings as hints (issue 6).
  ["agent", { factory: agentGraderFactory("agent"), capabilities: MODEL }],
  ["ensemble", { factory: agentGraderFactory("ensemble"), capabilities: MODEL }],
]);

export function registerGrader(
  name: string,
  factory: GraderFactory,
  capabilities: GraderCapabilities = NO_MODEL,
): void {
  if (factories.has(name)) throw new ConfigError(`a grader named "${name}" is already registered`);
  factories.set(name, { factory, capabilities });
}

/** What the grader called `name` declares, or undefined when no grader has that name. */
export function graderCapabilities(name: string): GraderCapabilities | undefined {
  return factories.get(name)?.capabilities;
}

/** Registered names, sorted, for help texts and error messages. */
export function graderNames(): string[] {
  return [...factories.keys()].sort();
}

export function createGrader(name: string, options: Record<string, unknown> = {}): Grader {
  const entry = factories.get(name);
  if (!entry) throw new ConfigError(`unknown grader "${name}"; known graders: ${graderNames().join(", ")}`);
  return entry.factory(options);
}
