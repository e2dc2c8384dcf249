import type { AdvantageOptions } from "../advantage/group-advantages.ts";
import { computeGroupAdvantages } from "../advantage/group-advantages.ts";
import { rankingProbes, withProbeFindings } from "../probe/group-findings.ts";
import { probeThenGrade } from "./probed-grading.ts";
import type { StepGroup, StepServices } from "./step.ts";

/** Counts and stage times the step's metrics report, summed over its kept groups. */
export interface ScoringTally {
  graderCalls: number;
  graderFallbacks: number;
  vetoed: number;
  stageMs: Record<string, number>;
}

/**
 * Scores one kept group in place: a group with ≥ 2 passing candidates is probed and ranked (or its
 * ranking reloaded under `graderKey`, on resume), then every kept group gets its GAGAR advantages.
 */
export async function scoreKeptGroup(
  services: StepServices,
  graderKey: string,
  entry: StepGroup,
  advantage: AdvantageOptions,
  tally: ScoringTally,
): Promise<void> {
  const { store } = services;
  const groupId = entry.group.id;
  const passing = entry.group.candidates.filter((c) => c.passed).length;
  let group = entry.group;
  if (passing >= 2) {
    let ranking = store.findRanking(groupId, graderKey);
    if (!ranking) {
      const t0 = performance.now();
      const graded = await probeThenGrade(services.grader, entry.group, services.probes, {
        verdicts: entry.verdicts,
      });
      ranking = graded.ranking;
      tally.graderCalls++;
      store.saveRanking(groupId, graderKey, ranking);
      tally.stageMs.probe! += graded.probeMs;
      tally.stageMs.grade! += performance.now() - t0 - graded.probeMs;
    }
    // A resumed step finds the probe findings with the ranking: the veto sees them as before.
    entry.probes = rankingProbes(ranking);
    if (entry.probes) group = withProbeFindings(group, entry.probes.findings);
    if (ranking.grader.fallback) tally.graderFallbacks++;
    entry.ranking = ranking;
    entry.group = group;
  }
  const t0 = performance.now();
  entry.advantages = computeGroupAdvantages(group, entry.ranking, advantage);
  tally.vetoed += entry.advantages.vetoed.length;
  tally.stageMs.advantage! += performance.now() - t0;
}
