import { availableParallelism } from "node:os";
import { ADVANTAGE_DEFAULTS } from "../contracts/advantage-settings.ts";
/**
 * Every default of `gagar.config.json`, with the reason for its value. The schema (schema.ts) takes
 * them from here and nowhere else.
 */
export const DEFAULTS = {
  /** The bundled example pack, so `gagar demo` runs with no arguments. */
  tasks: "examples/tasks",
  /** n = 8 is the common group size for SWE-style GRPO (DAPO, SWE-RL); ≥ 2 is needed for any signal. */
  groupSize: 8,
  /** Informative groups per step (B); small, because each group costs n sandboxed test runs. */
  batchGroups: 4,
  /** A fixed seed makes task choice and replay order reproducible; change it per run to vary them. */
  seed: 0,
  /** Where runs, batches and the store go. */
  out: "gagar-out",
  rollouts: {
    /** Recorded rollouts need no model; the example pack ships them. */
    source: "replay" as const,
    replayDir: "examples/rollouts",
  },
  policy: {
    /** Agent turns per rollout: SWE-style tasks are usually solved in 10–40 tool calls. */
    maxTurns: 30,
    /** Completion tokens per model call; enough for a file rewrite, small enough to bound a turn. */
    maxTokens: 4096,
    /** Per-call timeout in seconds; a policy server under RL load can be slow, but not minutes. */
    timeoutSec: 120,
    /** Sampling temperature 1.0: RL needs the policy's own distribution, not a sharpened one. */
    temperature: 1.0,
    /** Rollouts in flight at once: the server batches requests, the sandbox runs are short. */
    concurrency: 8,
    /** Seconds one shell command of the agent may run inside the sandbox. */
    commandTimeoutSec: 60,
    /**
     * Wall-clock seconds of one rollout. A 30-turn rollout on a busy server takes minutes; without a
     * cap only maxTurns × (timeoutSec + commandTimeoutSec) bounds it (~90 min), and the slowest
     * rollout holds back its whole group. Past the cap the rollout ends with `time_limit` and the
     * patch so far.
     */
    rolloutTimeoutSec: 1800,
    /**
     * Bytes of one rollout's workspace (a tmpfs: the repository copy, its git baseline and whatever the
     * agent writes). A repository with build outputs and test caches fits; a runaway command stops at
     * "No space left on device" instead of filling the host's disk. tmpfs is memory: concurrency × this
     * is the worst case, reached only by rollouts that fill their quota.
     */
    workspaceBytes: 1024 * 2 ** 20,
    /** Files and directories a rollout may create beyond the repository's own (as the verifier allows). */
    workspaceInodes: 100_000,
    /**
     * Ask for the sampled tokens' logprobs and ids, stored per assistant turn for trainers; a server
     * that refuses them is asked without, so leaving this on costs nothing there.
     */
    logprobs: true,
  },
  /** The strongest sandbox available; `auto` never runs unsandboxed. */
  sandbox: "auto" as const,
  /** Parallel verification sandboxes: one per CPU of the host, since a test run mostly keeps one CPU busy. */
  verifyJobs: availableParallelism(),
  /** The embedded grader needs no model, so it is the default; `agent` is the paper's grader. */
  grader: "static",
  advantage: ADVANTAGE_DEFAULTS,
  probes: {
    /**
     * Behavioural probes (docs/probes.md) for kept groups whose task pack is known: the only check that
     * catches a hard-coding with nothing literal to see, at the cost of probe runs in the sandbox.
     */
    enabled: true,
    /**
     * Wall seconds of probe runs per group. The reference runs once (twice when a candidate differs
     * from it) and each passing candidate once, each about the task's own test run (every test with up
     * to 16 nudged inputs); a group of 8 on a small task takes well under this, and a slow task is cut
     * off instead of holding the step.
     */
    budgetSec: 120,
    /**
     * The agent grader's run_probe tool: wall seconds of one subject's run of the model's snippet (a
     * snippet runs a few expressions, so more than this is a loop), and of all its runs in one grading
     * pass (a few calls over the group, without letting one pass hold the step).
     */
    runProbeCallSec: 20,
    runProbePassSec: 120,
  },
  sampling: {
    /** Generation rounds per step before giving up on filling the batch (DAPO uses a cap like this). */
    maxRounds: 4,
    /** Each round generates 1.5× the missing groups, since many groups are all-pass or all-fail. */
    oversample: 1.5,
    /** A short batch is still worth training on; `fail` stops the run instead. */
    onShortfall: "partial" as const,
    /** gagar's pass-rate-aware selection; `uniform` is plain DAPO. */
    selection: "pass-rate" as const,
    /** Minimum selection weight, so a task that looked hopeless is still revisited now and then. */
    explorationFloor: 0.02,
  },
} as const;
