import type { TestRunnerName } from "../../contracts/task-spec.ts";
import type { JunitCase } from "../verdict/junit-report.ts";
import type { HarnessObject } from "./harness-surfaces.ts";

/**
 * The seam between the verifier and a test framework. One adapter per runner (`runners/<name>.ts`),
 * registered by name (registry.ts) and held to one contract suite (contract.test-suite.ts). A task
 * names its runner in task.json (`test.runner`); the language does not choose it.
 *
 * An adapter knows
 * - its **command template**: the default argv, and which placeholders a task's own command must hold
 *   (`{junit}`: the report channel, a pipe only the trusted runner reads; `{tests}`: the test files;
 *   `{reporter}`: a reporter module gagar supplies, for frameworks without a JUnit reporter of their own);
 * - its **JUnit reporting**: how a reported testcase is keyed, and how a task's test id finds it;
 * - its **canaries**: must-pass and must-fail tests written in its own framework and run in the same
 *   process as the hidden tests they guard (canary.ts says what each catches).
 */
export interface TestRunner {
  readonly name: TestRunnerName;
  /**
   * How a benchmark's test names are written as this runner's ids (tasks/benchmark-ids.ts): `nodes`,
   * `file::Class::test` (pytest's node ids); `titles`, `file::suite > title` (the JavaScript
   * frameworks); `own`, the names are the ids as they are (junit classnames).
   */
  readonly idStyle: "nodes" | "titles" | "own";
  /** Whether a task must have test files for it (`{tests}`); junit's command finds its tests itself. */
  readonly needsTestFiles: boolean;
  /** Whether a task must give `test.canaryCommand`: the runner cannot write canaries in a framework it does not know. */
  readonly needsCanaryCommand: boolean;
  /** The command a task gets when it names the runner but no command. */
  readonly defaultCommand: readonly string[];
  /** Placeholders a task's command must contain (each as a whole argument, except `{junit}`). */
  readonly requires: readonly Placeholder[];
  /**
   * Address space per process the framework needs, when more than the sandbox's default (RLIMIT_AS):
   * WebAssembly engines reserve large guard regions per instance.
   */
  readonly memoryBytes?: number;
  /** Whether the tests import Python from the workspace (the gate then refuses modules that shadow the toolchain). */
  readonly python: boolean;
  /**
   * The objects of its framework that the Node.js guard watches (harness-surfaces.ts): its runner, its
   * globals, its result channel. Empty where no Node.js guard runs the framework (pytest, junit).
   */
  readonly harness: readonly HarnessObject[];
  /** Whether `path` is a test file that `{tests}` should name (files named by test ids always are). */
  isTestFile(path: string): boolean;
  /** Checks the form of a test id, at load; returns what is wrong, or null. */
  checkId(id: string): string | null;
  /** The workspace file a test id names, or null when its ids name no file (junit classnames, mocha titles). */
  fileOf(id: string): string | null;
  /** The runs of one verification, with fresh random canaries. */
  plan(input: PlanInput): TestPlan;
}

export type Placeholder = "{junit}" | "{tests}" | "{reporter}" | "{pass}" | "{fail}" | "{message}";

export interface PlanInput {
  /** The task's command template (or the runner's default). */
  command: readonly string[];
  /** Test files `{tests}` stands for, workspace-relative, sorted. */
  testFiles: readonly string[];
  /** The junit runner's canary command (test.canaryCommand). */
  canaryCommand?: readonly string[];
  /**
   * The hidden test modules' text by path: adapters append must-fail canaries to the copy laid over
   * the workspace (inline-canaries.ts). Without it, only the canary modules of their own are planned.
   */
  sources?: ReadonlyMap<string, string>;
  /** The repository's top-level Python modules: what the tests import from them is the code under test. */
  repositoryModules?: ReadonlySet<string>;
}

/** A canary the verdict checks: the key of its testcase in its run, and what it must report. */
export interface CanaryCheck {
  /** The canary's test id in the runner's id space. */
  id: string;
  /** The key its testcase is indexed under in its run (`keysOf`). */
  key: string;
  expect: "pass" | "fail";
  /** Text the failure message must contain (must-fail canaries). */
  message?: string;
}

/** A file laid read-only over the workspace (`path`, relative) or into the runner's own `/gagar` (`support`). */
export interface PlanFile {
  path: string;
  content: string;
}

export interface PlannedRun {
  label: string;
  argv: string[];
  /** The keys a reported testcase is indexed under (several: it is found by any of them). */
  keysOf(c: JunitCase): string[];
  /** The task-style test id of a reported testcase (what import writes into failToPass/passToPass). */
  idOf(c: JunitCase): string;
  canaries: CanaryCheck[];
}

export interface TestPlan {
  runs: PlannedRun[];
  /** Canaries and wrapper modules, laid over the workspace read-only. */
  files: PlanFile[];
  /** Reporter modules and the like, bound read-only under /gagar (path is the name there). */
  support: PlanFile[];
  /** Which run reports test id `id`, and under which key; null when no run covers it. */
  locate(id: string): { run: number; key: string } | null;
  /** What the Node.js guard watches in this run: the adapter's harness and the hidden tests' assertion libraries. */
  harness?: HarnessObject[];
}

/** Where `{junit}` points: the write end of the report pipe (sandbox-runner.py). */
export const REPORT_FD = 3;
export const REPORT_PATH = `/proc/self/fd/${REPORT_FD}`;
/** Where support files (reporters) are bound in the sandbox. */
export const SUPPORT_DIR = "/gagar/support";
