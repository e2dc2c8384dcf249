import type { AdvantageOptions } from "../advantage/group-advantages.ts";
import { computeGroupAdvantages } from "../advantage/group-advantages.ts";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { SandboxError } from "../errors.ts";
import type { Grader } from "../grade/types.ts";
import { computeStepMetrics, type StepMetrics } from "../metrics/step-metrics.ts";
import { type ProbeSummary, rankingProbes, withProbeFindings } from "../probe/group-findings.ts";
import type { RolloutSource } from "../rollout/types.ts";
import {
  type DynamicSamplingOptions,
  type GeneratedGroup,
  sampleInformativeGroups,
} from "../sampling/dynamic-sampler.ts";
import { seededRandom } from "../sampling/random.ts";
import type { StoredCandidate, StoredGroup } from "../store/groups.ts";
import type { RunStore } from "../store/run-store.ts";
import { probeThenGrade, type StepProber } from "./probed-grading.ts";
import { advantageFacts, candidateFacts } from "./step-facts.ts";

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
  const draws = priorDraws(store, settings.runId, settings.stepIdx);
  const verdictsByGroup = new Map<string, Verdict[]>();
  const verifications = { fresh: 0, reused: 0 };
  const storedByGroup = new Map<string, StoredGroup>();

  const generate = async (taskId: string, round: number): Promise<GeneratedGroup<Group>> => {
    const task = tasks.get(taskId)!;
    const groupId = `${settings.runId}/s${settings.stepIdx}/r${round}/${taskId}`;
    let stored = existing.get(`${round}/${taskId}`);
    const drawIndex = draws.get(taskId) ?? 0;
    draws.set(taskId, drawIndex + 1);
    if (!stored) {
      const t0 = performance.now();
      const rollouts = await services.source.generate({
        taskId,
        statement: task.statement,
        repoDir: task.repoDir,
        count: settings.groupSize,
        groupId,
        drawIndex,
      });
      stageMs.rolloutBusy! += performance.now() - t0;
      stored = store.saveGroup(
        step.id,
        { id: groupId, taskId, round },
        rollouts.map((r) => ({ id: r.id, patch: r.patch, trajectory: r.trajectory ?? {} })),
      );
    }
    storedByGroup.set(groupId, stored);
    const t0 = performance.now();
    const verdicts = await verifyCached(services, taskId, stored.candidates, verifications);
    stageMs.verifyBusy! += performance.now() - t0;
    verdictsByGroup.set(groupId, verdicts);
    const group = toGroup(task, stored, verdicts);
    const rewards = group.candidates.map((c) => c.reward);
    return { group, taskId, rewards, passes: group.candidates.filter((c) => c.passed).length };
  };

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
  let graderCalls = 0;
  let graderFallbacks = 0;
  let vetoed = 0;
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
    if (s.kept) {
      const passing = s.group.candidates.filter((c) => c.passed).length;
      let group = s.group;
      if (passing >= 2) {
        let ranking = store.findRanking(groupId, graderKey);
        if (!ranking) {
          const t0 = performance.now();
          const graded = await probeThenGrade(services.grader, s.group, services.probes, {
            verdicts: entry.verdicts,
          });
          ranking = graded.ranking;
          graderCalls++;
          store.saveRanking(groupId, graderKey, ranking);
          stageMs.probe! += graded.probeMs;
          stageMs.grade! += performance.now() - t0 - graded.probeMs;
        }
        // A resumed step finds the probe findings with the ranking: the veto sees them as before.
        entry.probes = rankingProbes(ranking);
        if (entry.probes) group = withProbeFindings(group, entry.probes.findings);
        if (ranking.grader.fallback) graderFallbacks++;
        entry.ranking = ranking;
        entry.group = group;
      }
      const t0 = performance.now();
      entry.advantages = computeGroupAdvantages(group, entry.ranking, settings.advantage);
      vetoed += entry.advantages.vetoed.length;
      stageMs.advantage! += performance.now() - t0;
    }
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
    graderCalls,
    graderFallbacks,
    vetoed,
    stageMs: { ...stageMs, total: performance.now() - started },
  });
  return { stepId: step.id, resumed: existing.size > 0, groups, metrics };
}

/** Looks verdicts up by (task, patch hash); verifies only the patches never seen before, once each. */
async function verifyCached(
  services: StepServices,
  taskId: string,
  candidates: StoredCandidate[],
  counts: { fresh: number; reused: number },
): Promise<Verdict[]> {
  const { store, verifier } = services;
  const shas = candidates.map((c) => c.patchSha256);
  const known = new Map<string, Verdict>();
  const missing: Rollout[] = [];
  const missingShas: string[] = [];
  candidates.forEach((c, i) => {
    const sha = shas[i]!;
    if (known.has(sha) || missingShas.includes(sha)) return;
    const cached = store.findVerdict(taskId, sha);
    if (cached) {
      known.set(sha, cached);
      counts.reused++;
    } else {
      missing.push({ id: c.id, taskId, patch: c.patch });
      missingShas.push(sha);
    }
  });
  counts.fresh += missing.length;
  if (missing.length) {
    const fresh = await verifier.verify(taskId, missing);
    const broken = fresh.find((v) => v.reason === "infra-error");
    if (broken) {
      // A verifier-side fault says nothing about the patch: stop here, keep the step resumable.
      throw new SandboxError(
        `verifying ${broken.rolloutId} of task ${taskId} failed: ${broken.detail ?? "infra-error"}`,
        true,
      );
    }
    fresh.forEach((v, i) => {
      const sha = missingShas[i]!;
      store.saveVerdict(taskId, sha, v);
      known.set(sha, v);
    });
  }
  return candidates.map((c, i) => ({ ...known.get(shas[i]!)!, rolloutId: c.id }));
}

function toGroup(task: StepTask, stored: StoredGroup, verdicts: Verdict[]): Group {
  return {
    schemaVersion: 1,
    id: stored.id,
    task: { id: task.id, statement: task.statement, language: task.language, workspace: task.repoDir },
    candidates: stored.candidates.map((c, i) => ({
      id: c.id,
      patch: c.patch,
      passed: verdicts[i]!.passed,
      reward: verdicts[i]!.passed ? 1 : 0,
      trajectory: {
        turns: numberOrUndefined(c.trajectory.turns),
        tokens: numberOrUndefined(c.trajectory.tokens),
      },
      ...(verdicts[i]!.findings.length ? { findings: verdicts[i]!.findings } : {}),
    })),
  };
}

function numberOrUndefined(x: unknown): number | undefined {
  return typeof x === "number" ? x : undefined;
}

/** Groups of each task drawn in earlier steps of the run (replay sources stay deterministic across resume). */
function priorDraws(store: RunStore, runId: string, stepIdx: number): Map<string, number> {
  const draws = new Map<string, number>();
  for (let i = 0; i < stepIdx; i++) {
    const step = store.getStep(runId, i);
    if (!step) continue;
    for (const g of store.getStepGroups(step.id)) draws.set(g.taskId, (draws.get(g.taskId) ?? 0) + 1);
  }
  return draws;
}

/** A per-step seed from the run seed. */
function mix(seed: number, step: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(step + 1, 0xc2b2ae35)) >>> 0;
}
