import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { Grader } from "../types.ts";
import { BASELINES } from "./baselines.ts";
import {
  blindGroup,
  type CriticalRecall,
  criticalStats,
  pairScores,
  type SubsetScore,
} from "./grader-eval.ts";

/**
 * Leave-one-repository-out evaluation of a tunable grader (`gagar grader eval --loro`).
 *
 * For each repository R: every setting of the grid is scored on the groups of the *other*
 * repositories (pairwise accuracy on all their clear pairs), the best one is chosen (ties go to the
 * earlier setting; the grid lists the defaults first), and only then is the chosen setting scored on
 * R's groups. Pooled over the folds, the figure is one no setting was chosen on: what a user with a
 * new repository can expect. Fewest changed lines is scored on the same held-out pairs beside it.
 */
export interface GridPoint {
  /** Short description, e.g. "excessPerLine=0.05 tieMargin=0.05 coreReach=8". */
  label: string;
  options: Record<string, unknown>;
}

export interface LoroFold {
  repo: string;
  groups: number;
  chosen: string;
  all: SubsetScore;
  sizeMisleading: SubsetScore;
  fewestLines: { all: SubsetScore; sizeMisleading: SubsetScore };
}

export interface LoroReport {
  folds: LoroFold[];
  pooled: { all: SubsetScore; sizeMisleading: SubsetScore };
  fewestLines: { all: SubsetScore; sizeMisleading: SubsetScore };
  criticalRecall: CriticalRecall | null;
}

/** The repository a group comes from: `task.repo`, else the id without a trailing `-<number>`. */
export function repoOf(group: Group): string {
  const repo = (group.task as Record<string, unknown>).repo;
  if (typeof repo === "string" && repo !== "") return repo;
  return group.id.replace(/-\d+$/, "");
}

export async function leaveOneRepoOut(
  groups: Group[],
  grid: readonly GridPoint[],
  makeGrader: (options: Record<string, unknown>) => Grader,
): Promise<LoroReport> {
  if (grid.length === 0) throw new Error("leave-one-repository-out needs at least one grid point");
  const rankings: Ranking[][] = [];
  for (const point of grid) {
    const grader = makeGrader(point.options);
    const graded: Ranking[] = [];
    for (const group of groups) graded.push(await grader.grade(blindGroup(group)));
    rankings.push(graded);
  }
  const repos = [...new Set(groups.map(repoOf))].sort();
  const fewest = BASELINES[0]!;
  const chosenRankings: (Ranking | undefined)[] = groups.map(() => undefined);
  const folds = repos.map((repo): LoroFold => {
    const held = groups.map((g, i) => ({ g, i })).filter(({ g }) => repoOf(g) === repo);
    const train = groups.map((g, i) => ({ g, i })).filter(({ g }) => repoOf(g) !== repo);
    let best = 0;
    let bestAccuracy = Number.NEGATIVE_INFINITY;
    grid.forEach((_, p) => {
      const score = pairScores(
        train.map((t) => t.g),
        (_g, k) => rankings[p]![train[k]!.i]!.ranking,
      ).all;
      const accuracy = score.accuracy ?? 0;
      if (accuracy > bestAccuracy + 1e-12) {
        best = p;
        bestAccuracy = accuracy;
      }
    });
    for (const { i } of held) chosenRankings[i] = rankings[best]![i];
    const heldGroups = held.map((h) => h.g);
    return {
      repo,
      groups: held.length,
      chosen: grid[best]!.label,
      ...pairScores(heldGroups, (_g, k) => rankings[best]![held[k]!.i]!.ranking),
      fewestLines: pairScores(heldGroups, (g) => fewest.rank(g)),
    };
  });
  return {
    folds,
    pooled: pairScores(groups, (_g, i) => chosenRankings[i]?.ranking),
    fewestLines: pairScores(groups, (g) => fewest.rank(g)),
    criticalRecall: criticalStats(groups, chosenRankings).recall,
  };
}
