import { z } from "zod";
import { Trajectory } from "./group.ts";

/** One rollout's final patch, before verification (input of `gagar verify`). */
export const Rollout = z.looseObject({
  id: z.string().min(1),
  taskId: z.string().min(1),
  /** Rollouts sharing a task and group id form one group; defaults to the task id. */
  groupId: z.string().min(1).optional(),
  patch: z.string(),
  trajectory: Trajectory.optional(),
});
export type Rollout = z.infer<typeof Rollout>;
