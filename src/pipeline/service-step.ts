import { z } from "zod";
import { computeGroupAdvantages } from "../advantage/group-advantages.ts";
import { AdvantageSettings } from "../contracts/advantage-settings.ts";
import { type Group, SCHEMA_VERSION, Trajectory } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { StepResult } from "../contracts/service.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { computeStepMetrics } from "../metrics/step-metrics.ts";
import { isInformative } from "../sampling/informative.ts";
import { patchSha256 } from "../store/patch-sha.ts";
import type { RunStore } from "../store/run-store.ts";
import { advantageFacts, candidateFacts } from "./step-facts.ts";
import { stampVerdict, UnitIndex, VerifyUnit } from "./work-units.ts";

/**
 * One RL step for a trainer that ran its own rollouts (`/v1/steps`): its groups are verified, the
 * dynamic-sampling filter keeps the informative ones, kept groups with two or more passes are graded,
 * and every group gets its advantages — the stages of `gagar run` after rollout, minus task choice
 * (the trainer chose the tasks).
 */

/** A step request as the service stores it: patches are in `units`, candidates point into them. */
export const StepJobData = z.strictObject({
  units: z.array(VerifyUnit),
  groups: z.array(
    z.strictObject({
      id: z.string(),
      task: z.strictObject({ id: z.string(), statement: z.string(), language: z.string() }),
      digest: z.string(),
      candidates: z.array(
        z.strictObject({ id: z.string(), unit: UnitIndex, trajectory: Trajectory.optional() }),
      ),
    }),
  ),
  grader: z.string(),
  graderOptions: z.record(z.string(), z.unknown()),
  options: AdvantageSettings,
  /** Behavioural probes before grading (the service's setting when the step was asked). */
  probes: z.strictObject({ budgetSec: z.number().positive() }).optional(),
});
export type StepData = z.output<typeof StepJobData>;

export interface VerifiedGroup {
  group: Group;
  digest: string;
  verdicts: Verdict[];
  kept: boolean;
  dropReason?: "zero-variance";
}

/** The step's groups with their verdicts (one per unit, in unit order) and the filter's decision. */
export function stepGroups(data: StepData, unitVerdicts: readonly Verdict[]): VerifiedGroup[] {
  return data.groups.map((g) => {
    const verdicts = g.candidates.map((c) =>
      stampVerdict(unitVerdicts[c.unit]!, { id: c.id, groupId: g.id }),
    );
    const group: Group = {
      schemaVersion: SCHEMA_VERSION,
      id: g.id,
      task: { ...g.task },
      candidates: g.candidates.map((c, i) => ({
        id: c.id,
        patch: data.units[c.unit]!.patch,
        passed: verdicts[i]!.passed,
        reward: verdicts[i]!.passed ? 1 : 0,
        ...(c.trajectory ? { trajectory: c.trajectory } : {}),
        ...(verdicts[i]!.findings.length ? { findings: verdicts[i]!.findings } : {}),
      })),
    };
    const kept = isInformative(group.candidates.map((c) => c.reward));
    return {
      group,
      digest: g.digest,
      verdicts,
      kept,
      ...(kept ? {} : { dropReason: "zero-variance" as const }),
    };
  });
}

/** Grading runs only for kept groups with two or more passing candidates (ARCHITECTURE.md, Formulas: redistribution needs k ≥ 2). */
export function gradingNeeded(g: VerifiedGroup): boolean {
  return g.kept && g.group.candidates.filter((c) => c.passed).length >= 2;
}

export interface StepFacts {
  verifications: { fresh: number; reused: number };
  stageMs: Record<string, number>;
}

/** Advantages for every group (a dropped one without ranking), the outcome per group, the metrics. */
export function assembleStep(
  data: StepData,
  groups: readonly VerifiedGroup[],
  rankings: ReadonlyMap<string, Ranking>,
  facts: StepFacts,
): StepResult {
  const advantageStarted = performance.now();
  const computed = groups.map((g) =>
    computeGroupAdvantages(g.group, rankings.get(g.group.id), data.options, {
      file: "request body",
      field: `groups.${g.group.id}`,
    }),
  );
  const advantageMs = performance.now() - advantageStarted;
  const kept = groups.filter((g) => g.kept);
  const metrics = computeStepMetrics({
    candidates: candidateFacts(groups),
    groupsGenerated: groups.length,
    groupsKept: kept.length,
    rounds: 1,
    advantages: groups.flatMap((g, i) =>
      g.kept ? advantageFacts(g.group, computed[i]!.rows, computed[i]!.vetoed) : [],
    ),
    verifications: facts.verifications,
    graderCalls: rankings.size,
    graderFallbacks: [...rankings.values()].filter((r) => r.grader.fallback).length,
    vetoed: computed.reduce((n, c) => n + c.vetoed.length, 0),
    stageMs: { ...facts.stageMs, advantage: advantageMs },
  });
  return {
    rows: computed.flatMap((c) => c.rows),
    groups: groups.map((g) => ({
      id: g.group.id,
      taskId: g.group.task.id,
      kept: g.kept,
      ...(g.dropReason ? { dropReason: g.dropReason } : {}),
      passed: g.group.candidates.filter((c) => c.passed).length,
      candidates: g.group.candidates.length,
      ...(rankings.has(g.group.id) ? { ranking: rankings.get(g.group.id)! } : {}),
    })),
    verdicts: groups.flatMap((g) => g.verdicts),
    metrics: JSON.parse(JSON.stringify(metrics)),
  };
}

/**
 * Records a finished step in the service's run store as step `idx` of its run, in one transaction:
 * the groups (ids prefixed by run and step, as `gagar run` names them), verdicts by (task, patch)
 * (stored once), rankings, advantages, the tasks' pass history and the metrics. Reports and
 * `gagar`'s other readers of the store then see the service's steps like any other.
 */
export function recordStep(
  store: RunStore,
  runId: string,
  idx: number,
  groups: readonly VerifiedGroup[],
  step: StepResult,
): void {
  const storedId = (groupId: string) => `${runId}/s${idx}/${groupId}`;
  store.transaction(() => {
    const record = store.beginStep(runId, idx);
    groups.forEach((g, i) => {
      const id = storedId(g.group.id);
      store.saveGroup(
        record.id,
        { id, taskId: g.group.task.id, round: 0 },
        g.group.candidates.map((c) => ({ id: c.id, patch: c.patch, trajectory: c.trajectory ?? {} })),
      );
      for (const [j, c] of g.group.candidates.entries())
        store.saveVerdict(g.group.task.id, patchSha256(c.patch), g.verdicts[j]!);
      store.markGroup(id, g.kept, g.dropReason);
      const ranking = step.groups[i]!.ranking;
      if (ranking)
        store.saveRanking(id, `${ranking.grader.name}@${ranking.grader.version}`, {
          ...ranking,
          groupId: id,
        });
      const passes = g.group.candidates.filter((c) => c.passed).length;
      store.recordTaskOutcome(
        g.group.task.id,
        { attempts: g.group.candidates.length, passes, informative: g.kept },
        idx,
      );
    });
    const kept = new Set(groups.filter((g) => g.kept).map((g) => g.group.id));
    store.saveAdvantages(
      record.id,
      step.rows.filter((r) => kept.has(r.groupId)).map((r) => ({ ...r, groupId: storedId(r.groupId) })),
    );
    store.finishStep(record.id, step.metrics);
  });
}
