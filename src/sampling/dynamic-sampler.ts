import { GagarError } from "../errors.ts";
import { isInformative } from "./informative.ts";
import type { Random } from "./random.ts";
import { type SelectionOptions, selectTasks, type TaskHistory } from "./task-selection.ts";

export interface GeneratedGroup<G> {
  group: G;
  taskId: string;
  /** One reward per rollout of the group. */
  rewards: number[];
  /** Rollouts that passed, for the task's pass-rate history. */
  passes: number;
}

export interface SampledGroup<G> extends GeneratedGroup<G> {
  round: number;
  kept: boolean;
  /** Why a group was not kept: zero reward variance, or the batch was already full. */
  dropReason?: "zero-variance" | "surplus";
}

export interface DynamicSamplingOptions {
  /** Informative groups wanted (B). */
  batchGroups: number;
  /** Rounds of generation before giving up. */
  maxRounds: number;
  /** Groups generated per round = ceil(missing groups × oversample). */
  oversample: number;
  /** Past maxRounds: throw, or return the informative groups found so far. */
  onShortfall: "fail" | "partial";
  selection: SelectionOptions;
}

export interface DynamicSamplingResult<G> {
  /** Every generated group in generation order, kept or not. */
  groups: SampledGroup<G>[];
  kept: SampledGroup<G>[];
  rounds: number;
  rolloutsGenerated: number;
  /** Rollouts generated per kept group (the cost of dynamic sampling); Infinity when none was kept. */
  rolloutsPerKeptGroup: number;
  shortfall: boolean;
}

export class SamplingShortfallError extends GagarError {
  override readonly name = "SamplingShortfallError";
}

export interface SamplerDeps<G> {
  taskIds: readonly string[];
  /** Pass-rate history before this step; not modified (outcomes of this step are layered on top). */
  history: ReadonlyMap<string, TaskHistory>;
  random: Random;
  /** Generates (or, on resume, reloads) the group for `taskId` in `round`. */
  generate: (taskId: string, round: number) => Promise<GeneratedGroup<G>>;
  /** Told after each round; `round` is its 0-based index, as in the groups' `round`. */
  onRound?: (round: number, outcome: RoundOutcome) => void;
}

/** What one round of generation gave. */
export interface RoundOutcome {
  generated: number;
  /** Generated groups with reward variance (the rest were all-pass or all-fail). */
  informative: number;
  /** Informative groups of this round that went into the batch. */
  kept: number;
  /** Informative groups of this round beyond what the batch needed, dropped as surplus. */
  surplus: number;
  /** Groups in the batch after this round, and how many it wants. */
  batch: number;
  wanted: number;
}

/**
 * DAPO-style dynamic sampling: generate groups, drop those whose rewards have zero variance, and
 * keep going until `batchGroups` informative groups exist (truncating the surplus) or `maxRounds`
 * pass. Task choice per round follows the selection policy, informed by history plus this step's
 * outcomes so far.
 */
export async function sampleInformativeGroups<G>(
  deps: SamplerDeps<G>,
  options: DynamicSamplingOptions,
): Promise<DynamicSamplingResult<G>> {
  const history = new Map(deps.history);
  const groups: SampledGroup<G>[] = [];
  let kept = 0;
  let round = 0;
  let rollouts = 0;
  while (kept < options.batchGroups && round < options.maxRounds) {
    const missing = options.batchGroups - kept;
    const size = Math.ceil(missing * options.oversample);
    const tasks = selectTasks(deps.taskIds, size, history, options.selection, deps.random);
    const generated = await Promise.all(tasks.map((taskId) => deps.generate(taskId, round)));
    const outcome = { generated: generated.length, informative: 0, kept: 0, surplus: 0 };
    for (const g of generated) {
      rollouts += g.rewards.length;
      const informative = isInformative(g.rewards);
      const keep = informative && kept < options.batchGroups;
      if (keep) kept++;
      if (informative) outcome.informative++;
      if (keep) outcome.kept++;
      else if (informative) outcome.surplus++;
      groups.push({
        ...g,
        round,
        kept: keep,
        ...(keep ? {} : { dropReason: informative ? ("surplus" as const) : ("zero-variance" as const) }),
      });
      const h = history.get(g.taskId) ?? { attempts: 0, passes: 0 };
      history.set(g.taskId, { attempts: h.attempts + g.rewards.length, passes: h.passes + g.passes });
    }
    deps.onRound?.(round, { ...outcome, batch: kept, wanted: options.batchGroups });
    round++;
  }
  const shortfall = kept < options.batchGroups;
  if (shortfall && options.onShortfall === "fail") {
    throw new SamplingShortfallError(
      `only ${kept} of ${options.batchGroups} informative groups after ${round} rounds (${rollouts} rollouts); ` +
        'raise sampling.maxRounds, lower batchGroups, or set sampling.onShortfall to "partial"',
    );
  }
  return {
    groups,
    kept: groups.filter((g) => g.kept),
    rounds: round,
    rolloutsGenerated: rollouts,
    rolloutsPerKeptGroup: kept ? rollouts / kept : Number.POSITIVE_INFINITY,
    shortfall,
  };
}
