import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { TaskSpec } from "../../contracts/task-spec.ts";
import { InputError } from "../../errors.ts";
import { parseRecord } from "../../io/validate.ts";
import { forbiddenReason } from "../gate/protected-paths.ts";
import { runnerNamed } from "../runners/registry.ts";
import type { TestRunner } from "../runners/types.ts";
import { storedProblems } from "./task-check-file.ts";

/**
 * Task packs: one folder per task (docs/tasks.md):
 *
 *   <id>/task.json        TaskSpec (src/contracts/task-spec.ts); `id` must equal the folder name
 *   <id>/repo/            the repository at the base commit (a `.git` inside is ignored: no history)
 *   <id>/tests/           hidden tests, at the same relative paths as in the repository
 *   <id>/reference.patch  optional known-good fix (a regression check: it must pass)
 *
 * Loading validates everything that can be checked without running anything and names the file and
 * field of each problem: the runner must be known and the command must hold the placeholders it needs
 * (runners/types.ts); every test id must have the runner's form, and one that names a file must name
 * one in tests/ or repo/; hidden tests must be regular files at safe paths.
 */
export interface TaskPack {
  /** Absolute path of the task folder. */
  dir: string;
  spec: TaskSpec;
  /** The adapter `spec.test.runner` names. */
  runner: TestRunner;
  /** The test command template: the task's own, or the runner's default. */
  command: string[];
  repoDir: string;
  testsDir: string;
  /** Hidden test files relative to tests/ (= their paths in the repository), sorted. */
  hiddenTests: string[];
  referencePatch?: string;
  /** Why its last saved check (check.json) found the task invalid, if it did: it is not scored. */
  invalid?: string[];
}

export function loadTaskPack(dir: string): TaskPack {
  const root = resolve(dir);
  const file = join(root, "task.json");
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      { file },
      code === "ENOENT" ? "no task.json in the task folder" : `not valid JSON (${(e as Error).message})`,
    );
  }
  const spec = parseRecord(TaskSpec, json, { file });
  if (spec.id !== basename(root)) {
    throw new InputError(
      { file, field: "id" },
      `id "${spec.id}" differs from the folder name "${basename(root)}"`,
    );
  }
  const runner = runnerNamed(spec.test.runner);
  const command = commandOf(spec, runner, file);
  const repoDir = join(root, "repo");
  const testsDir = join(root, "tests");
  requireDir(repoDir, file, "the repository at the base commit");
  requireDir(testsDir, file, "the hidden tests");
  const hiddenTests = listHiddenTests(testsDir);
  checkTestIds(spec, runner, file, hiddenTests, repoDir);
  const pack: TaskPack = { dir: root, spec, runner, command, repoDir, testsDir, hiddenTests };
  const testFiles = testFilesOf(pack);
  if (testFiles.length === 0 && runner.needsTestFiles) {
    throw new InputError(
      { file, field: "failToPass" },
      `no test files for the ${runner.name} runner: none in tests/ looks like one, and no test id names one`,
    );
  }
  const reference = join(root, "reference.patch");
  if (existsSync(reference)) pack.referencePatch = readFileSync(reference, "utf8");
  const invalid = storedProblems(pack);
  if (invalid) pack.invalid = invalid;
  return pack;
}

/** The test files `{tests}` stands for: hidden tests that look like tests, and every file a test id names. */
export function testFilesOf(pack: Pick<TaskPack, "spec" | "runner" | "hiddenTests">): string[] {
  const files = new Set(pack.hiddenTests.filter((f) => pack.runner.isTestFile(f)));
  for (const id of [...pack.spec.failToPass, ...pack.spec.passToPass]) {
    const testFile = pack.runner.fileOf(id);
    if (testFile) files.add(testFile);
  }
  return [...files].sort();
}

/**
 * Loads every task under `root` (folders holding a task.json), or `root` itself when it is one task.
 * Folders without task.json are skipped; a broken task.json is an error.
 */
export function loadTaskPacks(root: string): Map<string, TaskPack> {
  const packs = new Map<string, TaskPack>();
  const dir = resolve(root);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new InputError({ file: dir }, "not a directory");
  if (existsSync(join(dir, "task.json"))) {
    const pack = loadTaskPack(dir);
    packs.set(pack.spec.id, pack);
    return packs;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (!entry.isDirectory() || !existsSync(join(dir, entry.name, "task.json"))) continue;
    const pack = loadTaskPack(join(dir, entry.name));
    packs.set(pack.spec.id, pack);
  }
  if (packs.size === 0) throw new InputError({ file: dir }, "no task folders (with a task.json) here");
  return packs;
}

/** The task's command (or the runner's default), checked for the placeholders its runner needs. */
export function commandOf(spec: TaskSpec, runner: TestRunner, file: string): string[] {
  const argv = spec.test.command ?? [...runner.defaultCommand];
  if (argv.length === 0)
    throw new InputError({ file, field: "test.command" }, `the ${runner.name} runner needs a command`);
  for (const placeholder of runner.requires) {
    const whole = placeholder !== "{junit}";
    if (
      !argv.some(
        (a) => (whole ? a === placeholder : a.includes(placeholder)) || a.includes(`=${placeholder}`),
      )
    )
      throw new InputError(
        { file, field: "test.command" },
        `the ${runner.name} runner's command must contain ${placeholder} (${PLACEHOLDER_WHY[placeholder]})`,
      );
  }
  const i = argv.findIndex((a) => a.includes("{tests}") && a !== "{tests}");
  if (i >= 0)
    throw new InputError({ file, field: `test.command.${i}` }, "{tests} must be an argument on its own");
  if (runner.needsCanaryCommand && !spec.test.canaryCommand)
    throw new InputError(
      { file, field: "test.canaryCommand" },
      `the ${runner.name} runner needs a canary command ({junit}, {pass}, {fail}, {message}; see src/verify/runners/${runner.name}.ts)`,
    );
  return argv;
}

const PLACEHOLDER_WHY: Record<string, string> = {
  "{junit}": "where the JUnit report is written",
  "{tests}": "the test files, which the runner wraps with its canaries",
  "{reporter}": "gagar's reporter module for this framework",
};

function requireDir(path: string, file: string, what: string): void {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info?.isDirectory())
    throw new InputError({ file: path }, `missing directory (${what}) beside ${basename(file)}`);
}

export function listHiddenTests(testsDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix + entry.name;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, `${rel}/`);
      else if (entry.isFile()) {
        const why = forbiddenReason(rel);
        if (why) throw new InputError({ file: path }, `hidden test path not allowed (${why})`);
        out.push(rel);
      } else
        throw new InputError(
          { file: path },
          "hidden tests must be regular files (no symlinks, FIFOs or devices)",
        );
    }
  };
  walk(testsDir, "");
  return out.sort();
}

function checkTestIds(
  spec: TaskSpec,
  runner: TestRunner,
  file: string,
  hidden: string[],
  repoDir: string,
): void {
  const seen = new Map<string, string>();
  const hiddenSet = new Set(hidden);
  for (const list of ["failToPass", "passToPass"] as const) {
    spec[list].forEach((id, i) => {
      const field = `${list}.${i}`;
      const other = seen.get(id);
      if (other) throw new InputError({ file, field }, `test id "${id}" is already listed at ${other}`);
      seen.set(id, field);
      const wrong = runner.checkId(id);
      if (wrong) throw new InputError({ file, field }, `test id "${id}": ${wrong}`);
      const testFile = runner.fileOf(id);
      if (testFile === null) return;
      if (forbiddenReason(testFile))
        throw new InputError({ file, field }, `test id "${id}" names an unsafe path`);
      const inRepo = lstatSync(join(repoDir, testFile), { throwIfNoEntry: false })?.isFile();
      if (!hiddenSet.has(testFile) && !inRepo) {
        throw new InputError(
          { file, field },
          `test id "${id}": ${testFile} is neither in tests/ nor in repo/`,
        );
      }
    });
  }
}
