import type { AdvantageRow } from "../contracts/advantage-row.ts";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import { InputError, type InputLocation } from "../errors.ts";
import { getEstimator } from "./estimators.ts";
import { tierPositions, UNRANKED_POSITION } from "./positions.ts";
import { type RedistributionOptions, redistributeRange, type SkipReason } from "./redistribute.ts";
import { isVetoed, type VetoPolicy } from "./veto.ts";

export interface AdvantageOptions extends RedistributionOptions {
  /** A registered estimator name (`grpo`, `drgrpo`, `rloo`, `grpo-pop`). */
  estimator: string;
  veto: VetoPolicy;
}

/** Reward a vetoed pass gets: that of a failure. */
export const VETOED_REWARD = 0;

export interface GroupAdvantages {
  rows: AdvantageRow[];
  /** Why nothing was redistributed; null when credit moved. */
  skipped: SkipReason | "no-ranking" | null;
  /** Candidates turned into failures by the veto. */
  vetoed: string[];
  /** Things the caller should tell the user (ignored ids, unranked passes). */
  warnings: string[];
}

/**
 * Base advantages plus GAGAR redistribution for one group, driven by its ranking.
 * A ranking naming an unknown candidate is an InputError at `rankingLocation`; one naming a failing
 * candidate is ignored with a warning; passing candidates it leaves out sit at the middle position.
 */
export function computeGroupAdvantages(
  group: Group,
  ranking: Ranking | undefined,
  options: AdvantageOptions,
  rankingLocation: InputLocation = { file: "<rankings>" },
): GroupAdvantages {
  const n = group.candidates.length;
  const warnings: string[] = [];
  const vetoed: string[] = [];
  const index = new Map(group.candidates.map((c, i) => [c.id, i]));
  const rewards = new Float64Array(n);
  const passing = new Uint8Array(n);
  group.candidates.forEach((c, i) => {
    const veto =
      c.passed && (isVetoed(ranking?.findings[c.id], options.veto) || isVetoed(c.findings, options.veto));
    if (veto) vetoed.push(c.id);
    passing[i] = c.passed && !veto ? 1 : 0;
    rewards[i] = veto ? VETOED_REWARD : c.reward;
  });

  const base = new Float64Array(n);
  getEstimator(options.estimator)(rewards, 0, n, base);

  const tierOf = new Int32Array(n).fill(-1);
  const position = new Float64Array(n).fill(UNRANKED_POSITION);
  if (ranking) {
    const tiers = rankedTiers(group, ranking, index, passing, rankingLocation, warnings);
    const positions = tierPositions(tiers.map((t) => t.length));
    tiers.forEach((tier, t) => {
      for (const i of tier) {
        tierOf[i] = t;
        position[i] = positions[t]!;
      }
    });
    const unranked = group.candidates.filter((_, i) => passing[i] && tierOf[i] === -1).map((c) => c.id);
    if (unranked.length && tiers.length) {
      warnings.push(
        `group ${group.id}: ranking leaves out passing ${unranked.join(", ")}; placed mid-ranking`,
      );
    }
  }

  const advantage = new Float64Array(n);
  const weight = new Float64Array(n);
  let tokens: Float64Array | undefined;
  if (options.preserve === "token") tokens = tokenCounts(group, passing);
  const skipped = ranking
    ? redistributeRange({ base, passing, position, tokens }, 0, n, options, advantage, weight)
    : "no-ranking";
  if (!ranking) {
    advantage.set(base);
    weight.fill(1);
  }
  if (vetoed.length) warnings.push(`group ${group.id}: vetoed ${vetoed.join(", ")} (critical findings)`);

  const rows = group.candidates.map(
    (c, i): AdvantageRow => ({
      groupId: group.id,
      candidateId: c.id,
      reward: rewards[i]!,
      baseAdvantage: base[i]!,
      advantage: advantage[i]!,
      weight: weight[i]!,
      tier: tierOf[i] === -1 ? null : tierOf[i]!,
    }),
  );
  return { rows, skipped, vetoed, warnings };
}

/** The ranking's tiers as candidate indices, keeping only passing candidates and dropping empty tiers. */
function rankedTiers(
  group: Group,
  ranking: Ranking,
  index: Map<string, number>,
  passing: Uint8Array,
  where: InputLocation,
  warnings: string[],
): number[][] {
  const ignored: string[] = [];
  const tiers: number[][] = [];
  ranking.ranking.forEach((tier, t) => {
    const kept: number[] = [];
    tier.forEach((id, j) => {
      const i = index.get(id);
      if (i === undefined) {
        throw new InputError(
          { ...where, field: `ranking.${t}.${j}` },
          `ranking for group "${group.id}" names candidate "${id}", which the group does not have`,
        );
      }
      if (passing[i]) kept.push(i);
      else if (group.candidates[i]!.passed === false) ignored.push(id);
    });
    if (kept.length) tiers.push(kept);
  });
  if (ignored.length)
    warnings.push(`group ${group.id}: ranking names failing ${ignored.join(", ")}; ignored`);
  return tiers;
}

function tokenCounts(group: Group, passing: Uint8Array): Float64Array {
  const tokens = new Float64Array(group.candidates.length);
  group.candidates.forEach((c, i) => {
    const count = c.trajectory?.tokens;
    if (count === undefined && passing[i]) {
      throw new InputError(
        { file: "<groups>", field: `candidates.${i}.trajectory.tokens` },
        `preserve "token" needs token counts; group "${group.id}" candidate "${c.id}" has none`,
      );
    }
    tokens[i] = count ?? 0;
  });
  return tokens;
}
