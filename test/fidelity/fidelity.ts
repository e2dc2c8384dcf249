import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createLimiter } from "../../src/concurrency/limiter.ts";
import type { Finding } from "../../src/contracts/finding.ts";
import type { TaskSpec } from "../../src/contracts/task-spec.ts";
import type { TestStatus } from "../../src/contracts/verdict.ts";
import { InputError } from "../../src/errors.ts";
import type { SandboxBackend } from "../../src/sandbox/types.ts";
import { checkTask } from "../../src/tasks/check.ts";
import { importSweBench } from "../../src/tasks/import.ts";
import { saveCheck } from "../../src/verify/pack/task-check-file.ts";
import { listHiddenTests, loadTaskPack, type TaskPack } from "../../src/verify/pack/task-pack.ts";
import { runnerNamed } from "../../src/verify/runners/registry.ts";
import { type Outcome, Verifier, type VerifyCallOptions } from "../../src/verify/verifier.ts";
import { exportTree } from "../../src/verify/workspace/git-tree-export.ts";
import { compareObserved } from "./compare.ts";
import type { FidelityManifest, FidelityRepository, FidelityTask } from "./manifest.ts";
import { materialize, suiteFiles, type UpstreamRepo, upstreamInstance } from "./upstream.ts";

/**
 * The real-code fidelity suite: every task of the manifest is imported from upstream history through
 * gagar's own import (`importSweBench`, FAIL_TO_PASS derived by running) and checked as `gagar tasks
 * import --check` checks it (`checkTask`: the empty and the gold patch judged on the imported task, with
 * their findings kept); every repository's whole suite is run
 * through the verifier with the guards and without them (`VerifierOptions.guards: false`), and the
 * per-test results compared. Nothing here decides a verdict: it collects what the verifier said, and the
 * test (realcode-fidelity.network.test.ts) says what must hold.
 */

export interface Judged {
  reason: Outcome["reason"];
  detail?: string;
  findings: Finding[];
}

export interface TaskResult {
  repository: string;
  task: string;
  /** The fixing commit (or version) and its base. */
  fix: string;
  base: string;
  runner: string;
  /** Why the import failed, when it did (then nothing else is set). */
  importError?: string;
  failToPass?: number;
  passToPass?: number;
  /** What `--check` found wrong, if anything. */
  checkProblems?: string[];
  gold?: Judged;
  empty?: Judged;
  /** The gold run's output tail and failure messages, for a reader chasing a failure. */
  goldDiagnostics?: string;
}

export interface SuiteResult {
  repository: string;
  at: string;
  runner: string;
  files: number;
  /** Why the suite could not be run, when it could not. */
  error?: string;
  guarded?: Judged & { tests: number; ms: number };
  bare?: Judged & { tests: number; ms: number };
  /** Tests whose status differs between the two runs (a test missing from one counts as `missing`). */
  differences?: { id: string; guarded: TestStatus; bare: TestStatus }[];
  /** Tests both runs agree on (with those that agreed when run again). */
  agreeing?: number;
  /** Tests whose results differed in the first pair of runs and agreed when their files were run again both ways. */
  settled?: { id: string; guarded: TestStatus; bare: TestStatus }[];
}

export interface FidelityOptions {
  manifest: FidelityManifest;
  /** The folder of git bundles (GAGAR_REALCODE). */
  realcode: string;
  /** Scratch folder for repositories, instances and task packs (removed by the caller). */
  workDir: string;
  sandbox: SandboxBackend;
  environmentCache?: string;
  /** Repositories or tasks worked on at once. */
  jobs?: number;
  /** Only these repositories (owner/name). */
  only?: readonly string[];
  log?: (message: string) => void;
}

/**
 * "field: why" of an import's refusal, whose message starts with the location in the instance file
 * (`<file>:<line> (field F): why`): the scratch file's path says nothing to a reader of the table.
 */
export function refusalOf(message: string, instanceFile: string): string {
  if (!message.startsWith(instanceFile)) return message;
  const parts = /^(?::\d+)?(?: \(field ([^)]*)\))?: ([\s\S]*)$/.exec(message.slice(instanceFile.length));
  if (!parts) return message;
  return parts[1] ? `${parts[1]}: ${parts[2]}` : parts[2]!;
}

/** A verifier that keeps the last outcome of each (task id, patch) it judged, so the check's runs can be read back with their findings. */
class RecordingVerifier extends Verifier {
  readonly outcomes = new Map<string, Outcome>();
  override async verify(pack: TaskPack, patch: string, call?: VerifyCallOptions): Promise<Outcome> {
    const outcome = await super.verify(pack, patch, call);
    this.outcomes.set(`${pack.spec.id}\0${patch}`, outcome);
    return outcome;
  }
}

export async function runFidelity(
  options: FidelityOptions,
): Promise<{ tasks: TaskResult[]; suites: SuiteResult[] }> {
  const log = options.log ?? (() => {});
  const common = { sandbox: options.sandbox, environmentCache: options.environmentCache, log, warn: log };
  const guarded = new RecordingVerifier({ ...common, guards: true });
  const bare = new Verifier({ ...common, guards: false });
  const limit = createLimiter(options.jobs ?? 2);
  const repos = options.manifest.repositories.filter((r) => !options.only || options.only.includes(r.name));
  const upstreamOf = upstreamCache(options.workDir, options.realcode);
  try {
    await Promise.all([guarded.selfTest(), bare.selfTest()]);
    // The whole suites first: they are the longest units, and a suite that mostly waits (loguru's
    // sleeps, find-my-way's process per file) then overlaps the tasks instead of ending the run alone.
    const suiteRuns = repos.map((repo) =>
      limit(async (): Promise<SuiteResult> => {
        const result: SuiteResult = {
          repository: repo.name,
          at: repo.suite.at,
          runner: repo.runner,
          files: 0,
        };
        try {
          const upstream = await upstreamOf(repo);
          const pack = await wholeSuitePack(repo, upstream, join(options.workDir, "suites"));
          result.files = pack.hiddenTests.length;
          // Built once by the guarded session; the bare one finds it in the shared cache.
          await guarded.task(pack);
          const { reported: _, ...runs } = await compareSuite(pack, guarded, bare);
          Object.assign(result, runs);
          log(
            `${repo.name} whole suite: ${result.agreeing} agree, ${result.differences?.length} differ (guarded ${runs.guarded.reason} ${(runs.guarded.ms / 1000).toFixed(0)} s, bare ${runs.bare.reason} ${(runs.bare.ms / 1000).toFixed(0)} s)`,
          );
          if (runs.differences.length) {
            const again = await settleDifferences(pack, runs.differences, guarded, bare);
            result.differences = again.differences;
            result.settled = again.settled;
            result.agreeing = runs.agreeing + again.settled.length;
            log(
              `${repo.name} whole suite, files of the differing tests run again both ways: ${again.settled.length} agreed, ${again.differences.length} still differ`,
            );
          }
        } catch (e) {
          result.error = (e as Error).message;
          log(`${repo.name} whole suite: ${result.error}`);
        }
        return result;
      }),
    );
    const taskRuns = repos.flatMap((repo) =>
      repo.tasks.map((task) =>
        limit(async (): Promise<TaskResult> => {
          const result: TaskResult = {
            repository: repo.name,
            task: task.id,
            fix: task.fix,
            base: task.base,
            runner: repo.runner,
          };
          const started = performance.now();
          const imported = await importTask(repo, task, upstreamOf, {
            workDir: options.workDir,
            verifier: guarded,
            log,
          });
          if ("importError" in imported) {
            result.importError = imported.importError;
            return result;
          }
          const { pack } = imported;
          result.failToPass = pack.spec.failToPass.length;
          result.passToPass = pack.spec.passToPass.length;
          const check = await checkTask(guarded, pack);
          saveCheck(pack, check);
          if (!check.valid) result.checkProblems = check.problems;
          const gold = guarded.outcomes.get(`${task.id}\0${pack.referencePatch}`);
          const empty = guarded.outcomes.get(`${task.id}\0`);
          if (gold) result.gold = judgedOf(gold);
          if (empty) result.empty = judgedOf(empty);
          if (gold && !gold.passed)
            result.goldDiagnostics = [gold.failureMessages, gold.outputTail].filter(Boolean).join("\n");
          log(
            `${task.id}: F2P ${result.failToPass}, gold ${gold?.reason}, empty ${empty?.reason} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
          return result;
        }),
      ),
    );
    return { tasks: await Promise.all(taskRuns), suites: await Promise.all(suiteRuns) };
  } finally {
    await Promise.all([guarded.close(), bare.close()]);
  }
}

/**
 * One task of the manifest imported from upstream history through gagar's own import
 * (`importSweBench`: FAIL_TO_PASS and PASS_TO_PASS derived by running the base and the gold with
 * `verifier`) into `<workDir>/tasks/<id>`; or why the import refused it (the field and why).
 */
export async function importTask(
  repo: FidelityRepository,
  task: FidelityTask,
  upstreamOf: (repo: FidelityRepository) => Promise<UpstreamRepo>,
  options: { workDir: string; verifier: Verifier; log: (message: string) => void },
): Promise<{ pack: TaskPack } | { importError: string }> {
  const { workDir, verifier, log } = options;
  try {
    const upstream = await upstreamOf(repo);
    const instance = await upstreamInstance(repo, upstream, task);
    const file = join(workDir, "instances", `${task.id}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(instance)}\n`);
    const report = await importSweBench(file, {
      reposDir: join(workDir, "repos"),
      outDir: join(workDir, "tasks"),
      testCommand: repo.command,
      timeoutSec: repo.timeoutSec,
      verifier: async () => verifier,
      log,
    });
    // An instance the import refused is reported, not thrown.
    const refused = report.failed[0];
    if (refused) {
      const importError = refusalOf(refused.message, file);
      log(`${task.id}: import failed: ${importError}`);
      return { importError };
    }
  } catch (e) {
    // The scratch instance file's path says nothing to a reader of the table: the field and why.
    const importError =
      e instanceof InputError && e.location.field ? `${e.location.field}: ${e.detail}` : (e as Error).message;
    log(`${task.id}: import failed: ${importError}`);
    return { importError };
  }
  return { pack: loadTaskPack(join(workDir, "tasks", task.id)) };
}

/** The repositories' upstream histories, each materialised once under `<workDir>/repos`. */
export function upstreamCache(
  workDir: string,
  realcode: string,
): (repo: FidelityRepository) => Promise<UpstreamRepo> {
  const upstreams = new Map<string, Promise<UpstreamRepo>>();
  return (repo) => {
    let pending = upstreams.get(repo.name);
    if (!pending) {
      pending = materialize(repo, join(workDir, "repos"), realcode, workDir);
      upstreams.set(repo.name, pending);
    }
    return pending;
  };
}

function judgedOf(outcome: Outcome): Judged {
  return {
    reason: outcome.reason,
    ...(outcome.detail !== undefined && { detail: outcome.detail }),
    findings: outcome.findings,
  };
}

/**
 * The repository at the suite's revision as a task pack whose hidden tests are every file of its suite
 * (laid over the same files, unchanged), so `{tests}` names the whole suite. It has no failToPass of its
 * own: like the import's derivation, the run is asked for every test it reported (`observe`).
 */
export async function wholeSuitePack(
  repo: FidelityRepository,
  upstream: UpstreamRepo,
  suitesDir: string,
): Promise<TaskPack> {
  const id = `${repo.name.replace("/", "__")}-suite`;
  const dir = join(suitesDir, id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const repoDir = join(dir, "repo");
  await exportTree(upstream.gitDir, upstream.commit(repo.suite.at), repoDir);
  const files = await suiteFiles(repo, upstream);
  if (files.length === 0) throw new Error(`no file of ${repo.suite.files.join(", ")} at ${repo.suite.at}`);
  for (const file of files) cpSync(join(repoDir, file), join(dir, "tests", file));
  const runner = runnerNamed(repo.runner);
  const spec: TaskSpec = {
    schemaVersion: 2,
    id,
    missingPassToPass: "fail",
    statement: `the whole test suite of ${repo.name} at ${repo.suite.at}`,
    language: repo.language,
    test: {
      runner: repo.runner,
      ...(repo.command && { command: repo.command }),
      env: {},
      report: "junit",
    },
    environment: repo.environment,
    failToPass: ["(whole suite)"],
    passToPass: [],
    timeoutSec: repo.timeoutSec,
    protectedPaths: [],
  };
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(spec, null, 2)}\n`);
  return {
    dir,
    spec,
    runner,
    command: repo.command ?? [...runner.defaultCommand],
    repoDir,
    testsDir: join(dir, "tests"),
    hiddenTests: listHiddenTests(join(dir, "tests")),
  };
}

/** How many more times the files of tests whose results differ are run both ways. */
const AGAIN = 2;

/**
 * Real suites have tests that depend on timing (winston's tail and stress tests on a loaded machine):
 * the files of the tests whose results differ are run again with the guards and without them, up to
 * AGAIN times, and a test is settled when a pair of those runs agrees on it. A difference the guards
 * cause is in every pair, so it stays.
 */
export async function settleDifferences(
  pack: TaskPack,
  differences: NonNullable<SuiteResult["differences"]>,
  guarded: Verifier,
  bare: Verifier,
): Promise<{
  differences: NonNullable<SuiteResult["differences"]>;
  settled: NonNullable<SuiteResult["settled"]>;
}> {
  let left = differences;
  const settled: NonNullable<SuiteResult["settled"]> = [];
  for (let attempt = 1; attempt <= AGAIN && left.length; attempt++) {
    const files = [...new Set(left.map((d) => pack.runner.fileOf(d.id) ?? d.id.split("::")[0]!))];
    const subset = subsetPack(pack, files, `again-${attempt}`);
    try {
      const runs = await compareSuite(subset, guarded, bare, attempt % 2 === 1);
      const still = new Set(runs.differences.map((d) => d.id));
      settled.push(...left.filter((d) => !still.has(d.id) && runs.reported.has(d.id)));
      left = left.filter((d) => still.has(d.id) || !runs.reported.has(d.id));
    } finally {
      await Promise.all([guarded.forget(subset), bare.forget(subset)]);
    }
  }
  return { differences: left, settled };
}

/** The whole-suite pack narrowed to `files` of its hidden tests (a task of its own, on the same tree). */
function subsetPack(pack: TaskPack, files: string[], suffix: string): TaskPack {
  const dir = `${pack.dir}-${suffix}`;
  rmSync(dir, { recursive: true, force: true });
  for (const file of files) cpSync(join(pack.testsDir, file), join(dir, "tests", file));
  const spec = { ...pack.spec, id: `${pack.spec.id}-${suffix}` };
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(spec, null, 2)}\n`);
  return {
    ...pack,
    dir,
    spec,
    testsDir: join(dir, "tests"),
    hiddenTests: listHiddenTests(join(dir, "tests")),
  };
}

/**
 * The whole suite with the guards and without them, one after the other (the bare run first with
 * `bareFirst`, so that repeated measurements can alternate), and where their results differ.
 */
export async function compareSuite(
  pack: TaskPack,
  guarded: Verifier,
  bare: Verifier,
  bareFirst = false,
): Promise<
  Required<Pick<SuiteResult, "guarded" | "bare" | "differences" | "agreeing">> & {
    /** Every test either run reported. */
    reported: ReadonlySet<string>;
  }
> {
  const timed = async (verifier: Verifier) => {
    const t0 = performance.now();
    const outcome = await verifier.verify(pack, "", { observe: true });
    return { outcome, ms: performance.now() - t0 };
  };
  const first = await timed(bareFirst ? bare : guarded);
  const second = await timed(bareFirst ? guarded : bare);
  const [withGuards, without] = bareFirst ? [second, first] : [first, second];
  const a = withGuards.outcome.observed ?? {};
  const b = without.outcome.observed ?? {};
  const { agreeing, differences } = compareObserved(a, b);
  const side = (run: { outcome: Outcome; ms: number }, observed: Record<string, TestStatus>) => ({
    ...judgedOf(run.outcome),
    tests: Object.keys(observed).length,
    ms: run.ms,
  });
  const reported = new Set([...Object.keys(a), ...Object.keys(b)]);
  return { guarded: side(withGuards, a), bare: side(without, b), differences, agreeing, reported };
}
