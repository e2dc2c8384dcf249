import { createLimiter } from "../concurrency/limiter.ts";
import type { Config } from "../config/schema.ts";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { ConfigError } from "../errors.ts";
import { createGrader } from "../grade/registry.ts";
import { ReplaySource } from "../rollout/replay.ts";
import type { RolloutSource } from "../rollout/types.ts";
import { selectBackend } from "../sandbox/select.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import { loadTaskPacks, type TaskPack } from "../verify/pack/task-pack.ts";
import { Verifier } from "../verify/verifier.ts";
import { verifyRollouts } from "../verify/verify-rollouts.ts";
import { packProber } from "./probed-grading.ts";
import type { StepServices, StepTask, StepVerifier } from "./step.ts";

export interface BuiltServices {
  /** Everything a step needs but the store, which the run opens once these are built. */
  services: Omit<StepServices, "store">;
  sandbox: SandboxBackend;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  /** Builds the rollout source for `policy` configs (the CLI, which reads the API key at its edge). */
  policySource?: (sandbox: SandboxBackend) => RolloutSource;
  /** The grader's options after the CLI layered environment settings over the config's. */
  graderOptions?: Record<string, unknown>;
  /** `--no-probes`: no behavioural probes whatever the config says. */
  probes?: boolean;
  warn?: (message: string) => void;
}

/** Builds the real services a config names: task packs, sandbox, verifier, rollout source, grader. */
export async function buildServices(
  config: Config,
  overrides: ServiceOverrides = {},
): Promise<BuiltServices> {
  const packs = loadTaskPacks(config.tasks);
  const sandbox = await selectBackend(config.sandbox, {
    allowUnsandboxed: config.allowUnsandboxed,
    warn: overrides.warn,
  });
  const verifier = new Verifier({ sandbox, warn: overrides.warn, log: overrides.warn });
  const source = createSource(config, sandbox, overrides);
  return {
    services: {
      source,
      verifier: pooledVerifier(packs, verifier, config.verifyJobs),
      grader: createGrader(config.grader, overrides.graderOptions ?? config.graderOptions),
      tasks: stepTasks(packs),
      ...(config.probes.enabled &&
        overrides.probes !== false && {
          probes: packProber((id) => packs.get(id), verifier, {
            budgetSec: config.probes.budgetSec,
            jobs: config.verifyJobs,
            runProbe: { callSec: config.probes.runProbeCallSec, passSec: config.probes.runProbePassSec },
          }),
        }),
    },
    sandbox,
    close: () => verifier.close(),
  };
}

function createSource(config: Config, sandbox: SandboxBackend, overrides: ServiceOverrides): RolloutSource {
  if (config.rollouts.source === "replay") return new ReplaySource(config.rollouts.replayDir, config.seed);
  if (!overrides.policySource)
    throw new ConfigError("policy rollouts need a policy source factory (the CLI builds one)");
  return overrides.policySource(sandbox);
}

/**
 * One verifier session shared by the whole run, with at most `jobs` candidates verifying at once across
 * all groups (plus the few sandboxes started ahead for a group's next candidate: Verifier.readyRuns).
 */
export function pooledVerifier(
  packs: ReadonlyMap<string, TaskPack>,
  verifier: Verifier,
  jobs: number,
): StepVerifier {
  const limit = createLimiter(jobs);
  return {
    verify: (_taskId: string, rollouts: Rollout[]): Promise<Verdict[]> =>
      verifyRollouts(rollouts, { tasks: packs, verifier, jobs: Math.max(1, rollouts.length), limit }),
  };
}

function stepTasks(packs: ReadonlyMap<string, TaskPack>): Map<string, StepTask> {
  return new Map(
    [...packs].map(([id, p]) => [
      id,
      { id, statement: p.spec.statement, language: p.spec.language, repoDir: p.repoDir },
    ]),
  );
}
