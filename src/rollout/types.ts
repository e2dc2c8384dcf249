import type { Rollout } from "../contracts/rollout.ts";

export interface RolloutRequest {
  taskId: string;
  /** The task's issue text, for sources that prompt a policy. */
  statement: string;
  /** Host path of the task's pristine repository (sources copy it; they never write into it). */
  repoDir: string;
  /** Rollouts wanted (the group size n). */
  count: number;
  /** The group these rollouts will form; ids of the rollouts are unique within it. */
  groupId: string;
  /** How many groups of this task the run drew before this one (replay uses it to stay deterministic). */
  drawIndex: number;
}

/** Where a group's rollouts come from: recorded files, or a live policy server. */
export interface RolloutSource {
  readonly name: string;
  generate(request: RolloutRequest): Promise<Rollout[]>;
}
