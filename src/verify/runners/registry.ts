import { jestRunner } from "./jest.ts";
import { junitRunner } from "./junit.ts";
import { mochaRunner } from "./mocha.ts";
import { nodeTestRunner } from "./node-test.ts";
import { pytestRunner } from "./pytest.ts";
import type { TestRunner } from "./types.ts";
import { vitestRunner } from "./vitest.ts";

/** Every test runner adapter, by the name a task.json gives in `test.runner`. */
export const RUNNERS: ReadonlyMap<string, TestRunner> = new Map(
  [pytestRunner, nodeTestRunner, jestRunner, mochaRunner, vitestRunner, junitRunner].map((r) => [r.name, r]),
);

export const RUNNER_NAMES = [...RUNNERS.keys()] as [string, ...string[]];

/** The adapter called `name`; unknown names are refused when the task is loaded (task-spec.ts). */
export function runnerNamed(name: string): TestRunner {
  const runner = RUNNERS.get(name);
  if (!runner) throw new Error(`unknown test runner "${name}" (one of ${RUNNER_NAMES.join(", ")})`);
  return runner;
}
