import type { Group } from "../contracts/group.ts";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { SandboxError } from "../errors.ts";
import type { GeneratedGroup } from "../sampling/dynamic-sampler.ts";
import type { StoredCandidate, StoredGroup } from "../store/groups.ts";
import type { RunStore } from "../store/run-store.ts";
import type { StepServices, StepSettings, StepTask } from "./step.ts";

/** What generating a step's groups left behind for grading and the metrics. */
export interface GeneratedGroups {
  generate: (taskId: string, round: number) => Promise<GeneratedGroup<Group>>;
  verdictsByGroup: Map<string, Verdict[]>;
  storedByGroup: Map<string, StoredGroup>;
  verifications: { fresh: number; reused: number };
}

/**
 * The sampler's `generate` for one step: a group already recorded (a resumed step) is reloaded, a new
 * one is drawn from the rollout source and saved before it is verified, so nothing is generated twice.
 * Rollout and verification overlap across groups, so their busy time is summed into `stageMs`.
 */
export function groupGenerator(
  services: StepServices,
  settings: StepSettings,
  stepId: number,
  existing: ReadonlyMap<string, StoredGroup>,
  stageMs: Record<string, number>,
): GeneratedGroups {
  const { store, tasks } = services;
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
        stepId,
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

  return { generate, verdictsByGroup, storedByGroup, verifications };
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
