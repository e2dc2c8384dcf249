/**
 * Upper bounds of the numbers a user sets (CLI flags and config fields), each with its reason. A value
 * past one is a typo far more often than a wish (`--concurrency 40000` for 4), and it would be found
 * only after the work started: as thousands of requests against one model server, a queue that takes
 * the machine's memory, or a run that never ends. The config schema and the CLI's parsers read the same
 * numbers, so a flag and its config field agree.
 */
export const LIMITS = {
  /** Agent grader passes per group: Borda over more than a few dozen shuffled passes changes nothing. */
  graderPasses: { max: 64, why: "shuffled passes per group" },
  /** Model calls in one agent session (policy or grader). */
  modelTurns: { max: 10_000, why: "model calls per session" },
  /** Tokens one session may spend, prompt and completion over all its calls. */
  sessionTokens: { max: 100_000_000, why: "tokens per session" },
  /** Wall time of one session or pass, in seconds (a day). */
  sessionSeconds: { max: 86_400, why: "seconds (a day)" },
  /** Requests in flight against one model server (groups graded or rollouts sampled at once). */
  modelConcurrency: { max: 1_024, why: "requests at once to one model server" },
  /** RL steps of one run or experiment. */
  steps: { max: 1_000_000, why: "steps" },
  /** Seeds per method of an experiment. */
  seeds: { max: 10_000, why: "seeds" },
  /** Rollouts in one group (the paper's groups are 8–64). */
  groupSize: { max: 4_096, why: "rollouts per group" },
  /** Groups in one batch. */
  batchGroups: { max: 1_000_000, why: "groups per batch" },
  /** Sampling rounds of one step. */
  samplingRounds: { max: 10_000, why: "sampling rounds per step" },
  /** Work units the service queues before it answers 429. */
  queuedUnits: { max: 10_000_000, why: "queued work units" },
  /** POST requests the service handles at once. */
  inflightRequests: { max: 100_000, why: "requests at once" },
} as const;

export type LimitName = keyof typeof LIMITS;
