import { execFile } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TaskSpec } from "../contracts/task-spec.ts";
import { ConfigError, InputError } from "../errors.ts";
import { EnvironmentError } from "../verify/environments/types.ts";
import { saveCheck } from "../verify/pack/task-check-file.ts";
import { listHiddenTests, loadTaskPack, type TaskPack } from "../verify/pack/task-pack.ts";
import { runnerNamed } from "../verify/runners/registry.ts";
import type { Outcome, Verifier } from "../verify/verifier.ts";
import { exportTree } from "../verify/workspace/git-tree-export.ts";
import type { Benchmark } from "./benchmark-ids.ts";
import {
  finished,
  judgeTask,
  type RunTaskResult,
  runTask,
  type TaskCheck,
  type TaskRuns,
  unfinished,
} from "./check.ts";
import { changingIdSuspects, deriveLists, unstableIds, without } from "./derive.ts";
import { type ImportInstance, type InstanceDefaults, readInstances, specOf } from "./instances.ts";

const run = promisify(execFile);

/**
 * `gagar tasks import`: benchmark instances → task packs.
 *
 * First every record is read and checked (instances.ts); a bad one stops the import before anything
 * is written. Then each instance in turn: `repo/` is the tree of `base_commit` in the git repository
 * `<repos>/<repo>` (git-tree-export.ts: no history); `tests/` holds every file `test_patch` creates or
 * changes, at its post-patch state (the patch is applied with `git apply` to a scratch copy of just
 * those files, never to the repository); `patch` becomes reference.patch.
 *
 * An instance without FAIL_TO_PASS, and every instance when `check` is set, is run twice (check.ts
 * `runTask`): the base with the hidden tests, and the reference. Missing lists are derived from those
 * runs (derive.ts), and the same runs are judged as `gagar tasks check --run` would, the result kept
 * in check.json (a task found invalid is never scored).
 *
 * An instance that cannot be imported (its test patch does not apply, its environment does not build,
 * nothing can be derived) does not stop the others: it is reported in `failed`, and leaves nothing
 * behind. Each pack is built in a temporary folder and renamed into place once complete; an output
 * folder the import made stays only if a task landed in it. Only a fault of the verifier itself (a
 * SandboxError) ends the import early.
 */

export interface ImportOptions extends InstanceDefaults {
  timeoutSec?: number;
  /** The verifier, made when the first instance needs to be run (then closed by the caller). */
  verifier?: () => Promise<Verifier>;
  /** Run every imported task and keep the result in check.json. */
  check?: boolean;
  log?: (message: string) => void;
}

/** An instance that was not imported, and why. */
export interface ImportFailure {
  id: string;
  /** The record's location and the field at fault, with what is wrong. */
  message: string;
  /** The tail of the output that shows why (a set-up command's, the reference run's). */
  output?: string;
}

export interface ImportReport {
  /** Every instance of the file, in order. */
  total: number;
  /** Task folders written. */
  imported: string[];
  /** Imported tasks that were run and found invalid (they are kept, and never scored). */
  invalid: TaskCheck[];
  /** Notes of imported tasks that were run and are valid. */
  notes: TaskCheck[];
  failed: ImportFailure[];
  /** How many records were read as each benchmark. */
  benchmarks: Partial<Record<Benchmark, number>>;
}

export async function importSweBench(instancesFile: string, options: ImportOptions): Promise<ImportReport> {
  const instances = await readInstances(instancesFile, options);
  const report: ImportReport = {
    total: instances.length,
    imported: [],
    invalid: [],
    notes: [],
    failed: [],
    benchmarks: {},
  };
  for (const i of instances) report.benchmarks[i.benchmark] = (report.benchmarks[i.benchmark] ?? 0) + 1;
  const unlisted = instances.find((i) => i.failToPass === undefined);
  if ((unlisted || options.check) && !options.verifier)
    throw unlisted
      ? new InputError(
          { ...unlisted.where, field: "FAIL_TO_PASS" },
          "missing: pass a sandbox to derive the lists by running the tests (gagar tasks import --sandbox)",
        )
      : new ConfigError("checking the imported tasks needs a sandbox to run them in");
  let verifier: Promise<Verifier> | undefined;
  const verifierOf = () => {
    verifier ??= options.verifier!();
    return verifier;
  };
  // A sandbox that cannot run is found before anything is written.
  if (unlisted || options.check) await (await verifierOf()).selfTest();
  const outDir = resolve(options.outDir);
  const made = makeOutDir(outDir);
  const building = new Set<string>();
  // An interrupted import (SIGINT, SIGTERM: the CLI exits) leaves no temporary folder either.
  const onExit = () => {
    for (const dir of building) rmSync(dir, { recursive: true, force: true });
    removeMade(outDir, made);
  };
  process.on("exit", onExit);
  try {
    for (const [n, instance] of instances.entries()) {
      const progress = `[${n + 1}/${instances.length}] ${instance.id}`;
      const scratch = mkdtempSync(join(outDir, `.${instance.id}.import-`));
      building.add(scratch);
      try {
        const built = await importOne(instance, join(scratch, instance.id), options, progress, verifierOf);
        if ("failure" in built) {
          report.failed.push(built.failure);
          options.log?.(`${progress}: not imported: ${built.failure.message}`);
          continue;
        }
        if (existsSync(instance.dest)) rmSync(instance.dest, { recursive: true, force: true });
        renameSync(join(scratch, instance.id), instance.dest);
        report.imported.push(instance.id);
        if (built.check && !built.check.valid) report.invalid.push(built.check);
        else if (built.check?.notes.length) report.notes.push(built.check);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
        building.delete(scratch);
      }
    }
  } finally {
    process.off("exit", onExit);
    if (report.imported.length === 0) removeMade(outDir, made);
  }
  return report;
}

type Built = { check?: TaskCheck } | { failure: ImportFailure };

/** Builds one task folder at `dir` (named as the task), running it when needed; a failure leaves `dir` to be removed. */
async function importOne(
  instance: ImportInstance,
  dir: string,
  options: ImportOptions,
  progress: string,
  verifierOf: () => Promise<Verifier>,
): Promise<Built> {
  const fail = (field: string, detail: string, output?: string): Built => ({
    failure: {
      id: instance.id,
      message: new InputError({ ...instance.where, field }, detail).message,
      ...(output && { output }),
    },
  });
  try {
    await writeSources(instance, dir);
  } catch (e) {
    if (e instanceof InputError) return fail(e.location.field ?? "test_patch", e.detail);
    throw e;
  }
  const timeoutSec = options.timeoutSec ?? 300;
  const derive = instance.failToPass === undefined;
  if (!derive) {
    writeSpec(dir, { ...specOf(instance), timeoutSec });
    const loaded = loadChecked(dir, instance);
    if ("failure" in loaded) return loaded;
    if (!options.check) return {};
    options.log?.(`${progress}: checking (the base with the hidden tests, then the reference)`);
    const ran = await runOnce(await verifierOf(), loaded.pack);
    const check = ran.ok ? judgeTask(loaded.pack.spec, ran.runs) : ran.check;
    saveCheck(loaded.pack, check);
    return { check };
  }
  options.log?.(`${progress}: deriving FAIL_TO_PASS/PASS_TO_PASS by running the tests`);
  const spec = { ...specOf(instance), timeoutSec };
  const ran = await runOnce(
    await verifierOf(),
    unlistedPack(dir, spec, instance.patch),
    async (runs, again) => {
      // Ids that may name a test differently in every run are told apart by a second run of the reference.
      const suspects = changingIdSuspects(runs.empty.observed ?? {}, runs.reference.observed ?? {});
      if (suspects.length === 0) return [];
      options.log?.(
        `${progress}: ${suspects.length} test ids differ between the runs; running the reference again`,
      );
      const second = await again();
      return unstableIds(runs.reference.observed ?? {}, second.observed ?? {});
    },
  );
  if (!ran.ok) {
    const cause = ran.cause;
    return fail(
      "environment",
      `cannot derive FAIL_TO_PASS: ${ran.check.problems.join("; ")}`,
      cause instanceof EnvironmentError ? cause.outputTail : undefined,
    );
  }
  const { empty, reference } = ran.runs;
  if (!reference.passed) {
    return fail(
      "patch",
      `cannot derive FAIL_TO_PASS: the reference run ${reference.reason}${reference.detail ? ` (${reference.detail})` : ""}`,
      diagnostics(reference),
    );
  }
  const baseFinished = finished(empty);
  const unstable = ran.unstable;
  const lists = without(deriveLists(empty.observed ?? {}, reference.observed ?? {}, baseFinished), unstable);
  const dropped = unstable.length
    ? `${unstable.length} test ids that change from run to run (a parametrisation with the time or a random value) are left out of the lists: ${unstable.slice(0, 3).join(", ")}${unstable.length > 3 ? ", …" : ""}`
    : undefined;
  if (lists.failToPass.length === 0) {
    const why = baseFinished
      ? `no test fails without the fix and passes with it${dropped ? ` (${dropped})` : ""}`
      : `no test is known to fail without the fix: ${unfinished(empty, timeoutSec, "without the fix")}`;
    return fail("FAIL_TO_PASS", `cannot derive: ${why}`, baseFinished ? undefined : diagnostics(empty));
  }
  writeSpec(dir, { ...spec, failToPass: lists.failToPass, passToPass: lists.passToPass });
  const loaded = loadChecked(dir, instance);
  if ("failure" in loaded) return loaded;
  const check = judgeTask(loaded.pack.spec, ran.runs);
  if (lists.unreached.length)
    check.notes.unshift(
      `${lists.unreached.length} tests the run without the fix never reached pass with the fix; they are listed as passToPass`,
    );
  if (dropped) check.notes.unshift(dropped);
  saveCheck(loaded.pack, check);
  return { check };
}

/**
 * The task's two runs, and the ids `unstable` finds with a second run of the reference if it asks for
 * one; then the session lets go of the task (its copy of the repository).
 */
async function runOnce(
  verifier: Verifier,
  pack: TaskPack,
  unstable: (runs: TaskRuns, again: () => Promise<Outcome>) => Promise<string[]> = async () => [],
): Promise<(RunTaskResult & { ok: false }) | { ok: true; runs: TaskRuns; unstable: string[] }> {
  try {
    const ran = await runTask(verifier, pack);
    if (!ran.ok) return ran;
    const again = () => verifier.verify(pack, pack.referencePatch!, { observe: true });
    return { ...ran, unstable: await unstable(ran.runs, again) };
  } finally {
    await verifier.forget(pack);
  }
}

/** Lines of a run's output tail shown with a failure (its failing tests' messages come first). */
const OUTPUT_LINES = 15;

/** What a run's failing tests reported, then the last lines of its output. */
function diagnostics(run: Outcome): string {
  const tail = run.outputTail?.split("\n").slice(-OUTPUT_LINES).join("\n");
  return [run.failureMessages, tail].filter(Boolean).join("\n");
}

/** repo/ at the base commit, tests/ from the test patch, reference.patch. */
async function writeSources(instance: ImportInstance, dir: string): Promise<void> {
  mkdirSync(dir, { mode: 0o755 });
  try {
    await exportTree(instance.repoDir, instance.baseCommit, join(dir, "repo"));
  } catch (e) {
    if (e instanceof InputError) throw new InputError({ ...e.location, field: "base_commit" }, e.detail);
    throw e;
  }
  await writeHiddenTests(instance, join(dir, "repo"), join(dir, "tests"));
  writeFileSync(join(dir, "reference.patch"), instance.patch);
}

function writeSpec(dir: string, spec: TaskSpec): void {
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(spec, null, 2)}\n`);
}

/** The task as `gagar verify` will load it, or why it does not load, said of the record. */
function loadChecked(dir: string, instance: ImportInstance): { pack: TaskPack } | { failure: ImportFailure } {
  try {
    return { pack: loadTaskPack(dir) };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const field = e.location.field
      ?.replace(/^failToPass/, "FAIL_TO_PASS")
      .replace(/^passToPass/, "PASS_TO_PASS");
    return {
      failure: {
        id: instance.id,
        message: new InputError({ ...instance.where, field }, `imported task is invalid: ${e.detail}`)
          .message,
      },
    };
  }
}

/** The task without lists, to be run for them: its runs then report every test they saw (`observe`). */
function unlistedPack(dir: string, spec: TaskSpec, patch: string): TaskPack {
  const runner = runnerNamed(spec.test.runner);
  return {
    dir,
    spec: { ...spec, failToPass: [], passToPass: [] },
    runner,
    command: spec.test.command ?? [...runner.defaultCommand],
    repoDir: join(dir, "repo"),
    testsDir: join(dir, "tests"),
    hiddenTests: listHiddenTests(join(dir, "tests")),
    referencePatch: patch,
  };
}

/** Applies the test patch to a scratch copy of the files it touches and keeps their new state. */
async function writeHiddenTests(instance: ImportInstance, repo: string, testsDir: string): Promise<void> {
  const where = { ...instance.where, field: "test_patch" };
  const scratch = mkdtempSync(join(dirname(testsDir), ".test-patch-"));
  try {
    for (const f of instance.testFiles) {
      if (f.oldPath && existsSync(join(repo, f.oldPath))) {
        mkdirSync(dirname(join(scratch, f.oldPath)), { recursive: true });
        copyFileSync(join(repo, f.oldPath), join(scratch, f.oldPath));
      }
    }
    writeFileSync(join(scratch, ".gagar-test.patch"), instance.testPatch);
    try {
      await run(
        "git",
        ["-c", "core.hooksPath=/dev/null", "apply", "--whitespace=nowarn", ".gagar-test.patch"],
        {
          cwd: scratch,
          env: {
            PATH: "/usr/local/bin:/usr/bin:/bin",
            GIT_CONFIG_NOSYSTEM: "1",
            GIT_CONFIG_GLOBAL: "/dev/null",
            GIT_CEILING_DIRECTORIES: dirname(scratch),
          },
        },
      );
    } catch (e) {
      const stderr = String((e as { stderr?: string }).stderr ?? "").trim();
      throw new InputError(where, `does not apply to base_commit: ${stderr}`);
    }
    mkdirSync(testsDir, { mode: 0o755 });
    for (const f of instance.testFiles) {
      if (f.newPath === null) continue;
      const target = join(testsDir, f.newPath);
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      writeFileSync(target, readFileSync(join(scratch, f.newPath)));
      chmodSync(target, 0o644);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Makes the output folder (and its missing parents); returns the first folder it made, if any. */
function makeOutDir(outDir: string): string | undefined {
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new ConfigError(`--out ${outDir} is not a folder`);
  try {
    return mkdirSync(outDir, { recursive: true });
  } catch (e) {
    throw new ConfigError(`--out ${outDir}: cannot make the folder (${(e as Error).message})`);
  }
}

/** Removes the folders `makeOutDir` made, from `outDir` up to `made`, while they are empty. */
function removeMade(outDir: string, made: string | undefined): void {
  if (made === undefined) return;
  for (let dir = outDir; ; dir = dirname(dir)) {
    try {
      if (readdirSync(dir).length) return;
      rmdirSync(dir);
    } catch {
      return; // gone already, or not ours to remove
    }
    if (dir === made) return;
  }
}
