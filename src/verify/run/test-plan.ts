import type { TaskPack } from "../pack/task-pack.ts";
import { testFilesOf } from "../pack/task-pack.ts";
import type { PlanInput, TestPlan } from "../runners/types.ts";

/**
 * The runs of one verification of `pack`: its runner's plan (runners/) for the task's command and test
 * files, with fresh random canaries each time; with the hidden tests' text (`context.sources`), canaries
 * are also planted into the test modules themselves (runners/inline-canaries.ts).
 */
export function planTests(
  pack: TaskPack,
  context: Pick<PlanInput, "sources" | "repositoryModules"> = {},
): TestPlan {
  return pack.runner.plan({
    command: pack.command,
    testFiles: testFilesOf(pack),
    canaryCommand: pack.spec.test.canaryCommand,
    ...context,
  });
}
