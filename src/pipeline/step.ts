import type { AdvantageOptions, computeGroupAdvantages } from "../advantage/group-advantages.ts";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import type { Grader } from "../grade/types.ts";
import { computeStepMetrics, type StepMetrics } from "../metrics/step-metrics.ts";
import type { ProbeSummary } from "../probe/group-findings.ts";
import type { RolloutSource } from "../rollout/types.ts";
import { type DynamicSamplingOptions, sampleInformativeGroups } from "../sampling/dynamic-sampler.ts";
import { seededRandom } from "../sampling/random.ts";
import type { StoredCandidate } from "../store/groups.ts";
import type { RunStore } from "../store/run-store.ts";
import type { StepProber } from "./probed-grading.ts";
import { advantageFacts, candidateFacts } from "./step-facts.ts";
import { groupGenerator } from "./step-groups.ts";
import { type ScoringTally, scoreKeptGroup } from "./step-scoring.ts";

/** What a step needs to know about a task of the pack. */
export interface StepTask {
  id: string;
  statement: string;
  language: string;
  /** Host path of the pristine repository at the base commit. */
  repoDir: string;
}

/** Verifies rollouts of one task; returns one verdict per rollout, in order. */
export interface StepVerifier {
  verify(taskId: string, rollouts: Rollout[]): Promise<Verdict[]>;
}

export interface StepServices {
  store: RunStore;
  source: RolloutSource;
  verifier: StepVerifier;
  grader: Grader;
  tasks: ReadonlyMap<string, StepTask>;
  /** Behavioural probes before grading; without it groups are graded on their patches and verdicts alone. */
  probes?: StepProber;
}

export interface StepSettings {
  runId: string;
  stepIdx: number;
  seed: number;
  groupSize: number;
  sampling: DynamicSamplingOptions;
  advantage: AdvantageOptions;
  /** Progress lines for the user (stderr); the step's results are returned, not printed. */
  log: (line: string) => void;
}

/** One verified, possibly graded group of the step, with everything a report or batch needs. */
export interface StepGroup {
  group: Group;
  round: number;
  kept: boolean;
  dropReason?: string;
  verdicts: Verdict[];
  ranking?: Ranking;
  /** What the behavioural probes found (also stored with the ranking, as `probes`). */
  probes?: ProbeSummary;
  advantages?: ReturnType<typeof computeGroupAdvantages>;
  /** Stored candidates (with full trajectories) aligned with group.candidates. */
  candidates: StoredCandidate[];
}

export interface StepResult {
  stepId: number;
  resumed: boolean;
  groups: StepGroup[];
  metrics: StepMetrics;
}

/**
 * One RL step: sample tasks, get n rollouts each, verify them, keep informative groups (dynamic
 * sampling), grade kept groups with ≥ 2 passing candidates, compute GAGAR advantages.
 *
 * Everything is recorded in the store as it happens, so a step killed midway resumes: its groups
 * are reloaded instead of regenerated, verdicts are looked up by (task, patch hash) and rankings by
 * (group, grader) — nothing finished is done twice.
 */
export async function runStep(services: StepServices, settings: StepSettings): Promise<StepResult> {
  const { store, tasks } = services;
  // Wall time per stage; rollout and verification overlap across groups, so their busy time is summed apart.
  const stageMs: Record<string, number> = {
    sampling: 0,
    probe: 0,
    grade: 0,
    advantage: 0,
    rolloutBusy: 0,
    verifyBusy: 0,
  };
  const started = performance.now();
  const step = store.beginStep(settings.runId, settings.stepIdx);
  const existing = new Map(store.getStepGroups(step.id).map((g) => [`${g.round}/${g.taskId}`, g]));
  if (existing.size)
    settings.log(`resuming step ${settings.stepIdx}: ${existing.size} groups already recorded`);
  const { generate, verdictsByGroup, storedByGroup, verifications } = groupGenerator(
    services,
    settings,
    step.id,
    existing,
    stageMs,
  );

  const samplingStarted = performance.now();
  const sampled = await sampleInformativeGroups(
    {
      taskIds: [...tasks.keys()].sort(),
      history: store.taskStats(),
      random: seededRandom(mix(settings.seed, settings.stepIdx)),
      generate,
      onRound: (round, o) =>
        settings.log(
          `round ${round}: ${o.generated} groups generated, ${o.informative} informative; kept ${o.kept} (batch ${o.batch}/${o.wanted})` +
            (o.surplus ? `, ${o.surplus} surplus dropped` : ""),
        ),
    },
    settings.sampling,
  );

  stageMs.sampling = performance.now() - samplingStarted;
  // Probes change what the grader sees, so a ranking made with them is not one made without.
  const graderKey = `${services.grader.name}@${services.grader.version}${services.probes ? "+probes" : ""}`;
  const tally: ScoringTally = { graderCalls: 0, graderFallbacks: 0, vetoed: 0, stageMs };
  const groups: StepGroup[] = [];
  for (const s of sampled.groups) {
    const groupId = s.group.id;
    const entry: StepGroup = {
      group: s.group,
      round: s.round,
      kept: s.kept,
      dropReason: s.dropReason,
      verdicts: verdictsByGroup.get(groupId)!,
      candidates: storedByGroup.get(groupId)!.candidates,
    };
    store.markGroup(groupId, s.kept, s.dropReason);
    if (s.kept) await scoreKeptGroup(services, graderKey, entry, settings.advantage, tally);
    groups.push(entry);
  }
  const kept = groups.filter((g) => g.kept);
  store.saveAdvantages(
    step.id,
    kept.flatMap((g) => g.advantages!.rows),
  );

  const metrics = computeStepMetrics({
    candidates: candidateFacts(groups),
    groupsGenerated: groups.length,
    groupsKept: kept.length,
    rounds: sampled.rounds,
    advantages: kept.flatMap((g) => advantageFacts(g.group, g.advantages!.rows, g.advantages!.vetoed)),
    verifications,
    graderCalls: tally.graderCalls,
    graderFallbacks: tally.graderFallbacks,
    vetoed: tally.vetoed,
    stageMs: { ...stageMs, total: performance.now() - started },
  });
  return { stepId: step.id, resumed: existing.size > 0, groups, metrics };
}

/** A per-step seed from the run seed. */
function mix(seed: number, step: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(step + 1, 0xc2b2ae35)) >>> 0;
}
