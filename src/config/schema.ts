import { z } from "zod";
import { maxSandboxJobs, SANDBOX_JOBS_PER_CPU } from "../concurrency/sandbox-jobs.ts";
import { AdvantageSettings } from "../contracts/advantage-settings.ts";
import { DEFAULTS } from "./defaults.ts";
import { LIMITS, type LimitName } from "./limits.ts";

/** A whole number from `min` to the named limit (limits.ts, shared with the CLI's flags). */
function wholeWithin(min: number, limit: LimitName, minMessage?: string) {
  const { max, why } = LIMITS[limit];
  return z.number().int().min(min, minMessage).max(max, `at most ${max} ${why}`);
}

const ReplaySource = z.strictObject({
  source: z.literal("replay"),
  /** Folder with `<task-id>.jsonl` recorded rollouts. */
  replayDir: z.string().min(1).default(DEFAULTS.rollouts.replayDir),
});

const PolicySource = z.strictObject({
  source: z.literal("policy"),
  /** OpenAI-compatible server of the policy being trained (vLLM, SGLang, …). */
  baseUrl: z.string().url(),
  model: z.string().min(1),
  /** Name of the environment variable holding the API key (read once, at the CLI edge). */
  apiKeyEnv: z.string().min(1).optional(),
  maxTurns: wholeWithin(1, "modelTurns").default(DEFAULTS.policy.maxTurns),
  maxTokens: wholeWithin(1, "sessionTokens").default(DEFAULTS.policy.maxTokens),
  timeoutSec: z
    .number()
    .positive()
    .max(LIMITS.sessionSeconds.max, `at most ${LIMITS.sessionSeconds.max} ${LIMITS.sessionSeconds.why}`)
    .default(DEFAULTS.policy.timeoutSec),
  temperature: z.number().min(0).max(2).default(DEFAULTS.policy.temperature),
  concurrency: wholeWithin(1, "modelConcurrency").default(DEFAULTS.policy.concurrency),
  commandTimeoutSec: z.number().positive().default(DEFAULTS.policy.commandTimeoutSec),
  rolloutTimeoutSec: z.number().positive().default(DEFAULTS.policy.rolloutTimeoutSec),
  workspaceBytes: z
    .number()
    .int()
    .min(16 * 2 ** 20, "at least 16 MiB (16777216)")
    .default(DEFAULTS.policy.workspaceBytes),
  workspaceInodes: z.number().int().min(1).default(DEFAULTS.policy.workspaceInodes),
  /** Where rollout workspaces are made (each on its own tmpfs mounted there); default the OS temp dir. */
  scratchDir: z.string().min(1).optional(),
  logprobs: z.boolean().default(DEFAULTS.policy.logprobs),
});

/** `gagar.config.json`: strict (unknown keys are errors), every default from defaults.ts. */
export const Config = z.strictObject({
  tasks: z.string().min(1).default(DEFAULTS.tasks),
  groupSize: wholeWithin(2, "groupSize", "a group needs at least 2 rollouts to compare").default(
    DEFAULTS.groupSize,
  ),
  batchGroups: wholeWithin(1, "batchGroups").default(DEFAULTS.batchGroups),
  seed: z.number().int().default(DEFAULTS.seed),
  out: z.string().min(1).default(DEFAULTS.out),
  rollouts: z.discriminatedUnion("source", [ReplaySource, PolicySource]).default({ ...DEFAULTS.rollouts }),
  sandbox: z.enum(["auto", "bwrap", "unshare", "unsandboxed"]).default(DEFAULTS.sandbox),
  allowUnsandboxed: z.boolean().default(false),
  verifyJobs: z
    .number()
    .int()
    .min(1)
    .max(maxSandboxJobs(), `at most ${SANDBOX_JOBS_PER_CPU} per CPU of this host (${maxSandboxJobs()})`)
    .default(DEFAULTS.verifyJobs),
  grader: z.string().min(1).default(DEFAULTS.grader),
  /** Options of the chosen grader (e.g. the agent grader's baseUrl and model); it validates them. */
  graderOptions: z.record(z.string(), z.unknown()).default({}),
  advantage: AdvantageSettings.default({ ...DEFAULTS.advantage }),
  probes: z
    .strictObject({
      enabled: z.boolean().default(DEFAULTS.probes.enabled),
      budgetSec: z
        .number()
        .positive()
        .max(LIMITS.sessionSeconds.max, `at most ${LIMITS.sessionSeconds.max} ${LIMITS.sessionSeconds.why}`)
        .default(DEFAULTS.probes.budgetSec),
      runProbeCallSec: z
        .number()
        .positive()
        .max(LIMITS.sessionSeconds.max, `at most ${LIMITS.sessionSeconds.max} ${LIMITS.sessionSeconds.why}`)
        .default(DEFAULTS.probes.runProbeCallSec),
      runProbePassSec: z
        .number()
        .positive()
        .max(LIMITS.sessionSeconds.max, `at most ${LIMITS.sessionSeconds.max} ${LIMITS.sessionSeconds.why}`)
        .default(DEFAULTS.probes.runProbePassSec),
    })
    .default({ ...DEFAULTS.probes }),
  sampling: z
    .strictObject({
      maxRounds: wholeWithin(1, "samplingRounds").default(DEFAULTS.sampling.maxRounds),
      oversample: z.number().min(1).default(DEFAULTS.sampling.oversample),
      onShortfall: z.enum(["fail", "partial"]).default(DEFAULTS.sampling.onShortfall),
      selection: z.enum(["uniform", "pass-rate"]).default(DEFAULTS.sampling.selection),
      explorationFloor: z.number().min(0).max(1).default(DEFAULTS.sampling.explorationFloor),
    })
    .default({ ...DEFAULTS.sampling }),
});
export type Config = z.output<typeof Config>;
export type ConfigInput = z.input<typeof Config>;
