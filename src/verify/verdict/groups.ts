import { type Group, SCHEMA_VERSION } from "../../contracts/group.ts";
import type { Rollout } from "../../contracts/rollout.ts";
import type { Verdict } from "../../contracts/verdict.ts";
import { ConfigError } from "../../errors.ts";
import type { TaskPack } from "../pack/task-pack.ts";

/**
 * Groups for `gagar grade` / `gagar advantages` from verified rollouts: one group per group id
 * (a rollout's `groupId`, or its task id), candidates in input order with `passed` and `reward`
 * (1 for a pass, 0 otherwise) and the verifier's findings from the verdict, and the task's repository as `workspace` so graders can
 * read the surrounding code. The reference patch is left out: graders must not see it unless configured.
 *
 * Rollouts whose verdict is `infra-error` are left out (their 0 is not a reward) and listed in
 * `skipped`; a group left with no candidates is dropped.
 */
export interface BuiltGroups {
  groups: Group[];
  skipped: string[];
}

export function buildGroups(
  rollouts: readonly Rollout[],
  verdicts: readonly Verdict[],
  tasks: ReadonlyMap<string, TaskPack>,
): BuiltGroups {
  const byId = new Map<string, Group>();
  const taskOf = new Map<string, string>();
  const skipped: string[] = [];
  rollouts.forEach((rollout, i) => {
    const verdict = verdicts[i]!;
    const id = rollout.groupId ?? rollout.taskId;
    const owner = taskOf.get(id);
    if (owner !== undefined && owner !== rollout.taskId) {
      throw new ConfigError(
        `group id "${id}" is used by rollouts of two tasks ("${owner}" and "${rollout.taskId}")`,
      );
    }
    taskOf.set(id, rollout.taskId);
    if (verdict.reason === "infra-error") {
      skipped.push(rollout.id);
      return;
    }
    let group = byId.get(id);
    if (!group) {
      const pack = tasks.get(rollout.taskId)!;
      group = {
        schemaVersion: SCHEMA_VERSION,
        id,
        task: {
          id: pack.spec.id,
          statement: pack.spec.statement,
          language: pack.spec.language,
          workspace: pack.repoDir,
        },
        candidates: [],
      };
      byId.set(id, group);
    }
    if (group.candidates.some((c) => c.id === rollout.id)) {
      throw new ConfigError(`rollout id "${rollout.id}" appears twice in group "${id}"`);
    }
    const candidate: Group["candidates"][number] = {
      id: rollout.id,
      patch: rollout.patch,
      passed: verdict.passed,
      reward: verdict.passed ? 1 : 0,
    };
    if (rollout.trajectory) candidate.trajectory = rollout.trajectory;
    if (verdict.findings.length) candidate.findings = verdict.findings;
    group.candidates.push(candidate);
  });
  return { groups: [...byId.values()], skipped };
}
