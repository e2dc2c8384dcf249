import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { TaskSpec } from "../contracts/task-spec.ts";
import { InputError } from "../errors.ts";
import { parseRecord } from "../io/validate.ts";
import { forbiddenReason, testIdFile } from "./protected-paths.ts";

/**
 * Task packs: one folder per task (DESIGN.md "Task pack"):
 *
 *   <id>/task.json        TaskSpec (src/contracts/task-spec.ts); `id` must equal the folder name
 *   <id>/repo/            the repository at the base commit (a `.git` inside is ignored: no history)
 *   <id>/tests/           hidden tests, at the same relative paths as in the repository
 *   <id>/reference.patch  optional known-good fix (a regression check: it must pass)
 *
 * Loading validates everything that can be checked without running anything and names the file and
 * field of each problem: the command must contain `{junit}` (the report goes to a channel the
 * verifier picks) and, for JavaScript/TypeScript, `{tests}` as an argument of its own (node's JUnit
 * reporter names no files, so each file is run on its own; see test-plan.ts); every test id that
 * names a file must name one in tests/ or repo/; hidden tests must be regular files at safe paths.
 */
export interface TaskPack {
  /** Absolute path of the task folder. */
  dir: string;
  spec: TaskSpec;
  repoDir: string;
  testsDir: string;
  /** Hidden test files relative to tests/ (= their paths in the repository), sorted. */
  hiddenTests: string[];
  referencePatch?: string;
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
  checkCommand(spec, file);
  const repoDir = join(root, "repo");
  const testsDir = join(root, "tests");
  requireDir(repoDir, file, "the repository at the base commit");
  requireDir(testsDir, file, "the hidden tests");
  const hiddenTests = listHiddenTests(testsDir);
  checkTestIds(spec, file, hiddenTests, repoDir);
  if (
    spec.language !== "python" &&
    hiddenTests.length === 0 &&
    !spec.failToPass.some((id) => testIdFile(id))
  ) {
    throw new InputError(
      { file, field: "failToPass" },
      "a JavaScript/TypeScript task needs test ids of the form file::name",
    );
  }
  const pack: TaskPack = { dir: root, spec, repoDir, testsDir, hiddenTests };
  const reference = join(root, "reference.patch");
  if (existsSync(reference)) pack.referencePatch = readFileSync(reference, "utf8");
  return pack;
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

function checkCommand(spec: TaskSpec, file: string): void {
  const argv = spec.test.command;
  if (!argv.some((a) => a.includes("{junit}"))) {
    throw new InputError(
      { file, field: "test.command" },
      "must contain {junit}, where the runner writes its JUnit report",
    );
  }
  const i = argv.findIndex((a) => a.includes("{tests}") && a !== "{tests}");
  if (i >= 0)
    throw new InputError({ file, field: `test.command.${i}` }, "{tests} must be an argument on its own");
  if (spec.language !== "python" && !argv.includes("{tests}")) {
    throw new InputError(
      { file, field: "test.command" },
      "JavaScript/TypeScript commands must take {tests}: node's JUnit reporter names no files, so each test file runs on its own",
    );
  }
}

function requireDir(path: string, file: string, what: string): void {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info?.isDirectory())
    throw new InputError({ file: path }, `missing directory (${what}) beside ${basename(file)}`);
}

function listHiddenTests(testsDir: string): string[] {
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

function checkTestIds(spec: TaskSpec, file: string, hidden: string[], repoDir: string): void {
  const seen = new Map<string, string>();
  const hiddenSet = new Set(hidden);
  for (const list of ["failToPass", "passToPass"] as const) {
    spec[list].forEach((id, i) => {
      const field = `${list}.${i}`;
      const other = seen.get(id);
      if (other) throw new InputError({ file, field }, `test id "${id}" is already listed at ${other}`);
      seen.set(id, field);
      const testFile = testIdFile(id);
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
