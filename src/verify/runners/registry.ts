import { TEST_RUNNERS, type TestRunnerName } from "../../contracts/task-spec.ts";
import { jestRunner } from "./jest.ts";
import { junitRunner } from "./junit.ts";
import { mochaRunner } from "./mocha.ts";
import { nodeTestRunner } from "./node-test.ts";
import { pytestRunner } from "./pytest.ts";
import type { TestRunner } from "./types.ts";
import { vitestRunner } from "./vitest.ts";

/** One adapter for each runner name task.json accepts (contracts/task-spec.ts `TEST_RUNNERS`). */
const ADAPTERS: Readonly<Record<TestRunnerName, TestRunner>> = {
  pytest: pytestRunner,
  "node:test": nodeTestRunner,
  jest: jestRunner,
  mocha: mochaRunner,
  vitest: vitestRunner,
  junit: junitRunner,
};

/** Every test runner adapter, by the name a task.json gives in `test.runner`. */
export const RUNNERS: ReadonlyMap<string, TestRunner> = new Map(
  TEST_RUNNERS.map((name) => [name, ADAPTERS[name]]),
);

export const RUNNER_NAMES = TEST_RUNNERS;

/** The adapter called `name`; unknown names are refused when the task is loaded (task-spec.ts). */
export function runnerNamed(name: string): TestRunner {
  const runner = RUNNERS.get(name);
  if (!runner) throw new Error(`unknown test runner "${name}" (one of ${RUNNER_NAMES.join(", ")})`);
  return runner;
}
