import { execFile } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { TaskSpec } from "../contracts/task-spec.ts";
import { parseDiff } from "../diff/parse.ts";
import { ConfigError, InputError } from "../errors.ts";
import { readJsonlAll } from "../io/jsonl.ts";
import { exportTree } from "./git-tree-export.ts";
import { forbiddenReason } from "./protected-paths.ts";
import { loadTaskPack } from "./task-pack.ts";

const run = promisify(execFile);

/**
 * `gagar tasks import`: SWE-bench-style instances → task packs.
 *
 * For each instance: `repo/` is the tree of `base_commit` in the git repository `<repos>/<repo>`
 * (git-tree-export.ts: no history); `tests/` holds every file `test_patch` creates or changes, at its
 * post-patch state (the patch is applied with `git apply` to a scratch copy of just those files, never
 * to the repository); `patch` becomes reference.patch; `FAIL_TO_PASS`/`PASS_TO_PASS` may be JSON lists
 * or JSON-encoded strings (as in the public datasets). Without `--test-command` the command runs pytest
 * on the hidden test files (`{tests}`) for Python, node:test for JavaScript/TypeScript. Each pack is
 * written to a temporary folder and renamed into place once it loads cleanly, so a failed import
 * leaves no half-written task behind.
 */

const idList = z.union([
  z.array(z.string().min(1)),
  z.string().transform((text, ctx) => {
    try {
      const parsed = z.array(z.string().min(1)).safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: "custom", message: "expected a list of test ids or a JSON-encoded list" });
    return z.NEVER;
  }),
]);

export const SweBenchInstance = z.looseObject({
  instance_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only"),
  repo: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, "expected owner/name"),
  base_commit: z.string().regex(/^[0-9a-fA-F]{7,64}$/, "expected a commit id"),
  patch: z.string(),
  test_patch: z.string().min(1),
  FAIL_TO_PASS: idList,
  PASS_TO_PASS: idList.default([]),
  problem_statement: z.string().min(1),
  language: z.string().optional(),
});
export type SweBenchInstance = z.output<typeof SweBenchInstance>;

/**
 * `--rootdir=.` pins pytest's node ids to the workspace root, as SWE-bench's ids are: an ini file below
 * the root (say tests/pytest.ini) would otherwise become the rootdir, and `tests/test_x.py::t` would be
 * reported as `test_x.py::t`.
 */
export const PYTEST_COMMAND = [
  "python3",
  "-B",
  "-m",
  "pytest",
  "-q",
  "-p",
  "no:cacheprovider",
  "-o",
  "junit_family=xunit1",
  "--rootdir=.",
  "--junitxml={junit}",
  "{tests}",
];
export const NODE_COMMAND = [
  "node",
  "--test",
  "--test-reporter=junit",
  "--test-reporter-destination={junit}",
  "{tests}",
];

export interface ImportOptions {
  reposDir: string;
  outDir: string;
  testCommand?: string[];
  timeoutSec?: number;
  /** Replace task folders that already exist. */
  force?: boolean;
}

export async function importSweBench(instancesFile: string, options: ImportOptions): Promise<string[]> {
  const records = await readJsonlAll(instancesFile, SweBenchInstance);
  const outDir = resolve(options.outDir);
  mkdirSync(outDir, { recursive: true });
  const seen = new Set<string>();
  const imported: string[] = [];
  for (const { value, line } of records) {
    const where = { file: instancesFile, line };
    if (seen.has(value.instance_id))
      throw new InputError({ ...where, field: "instance_id" }, "duplicate instance_id");
    seen.add(value.instance_id);
    const dest = join(outDir, value.instance_id);
    if (existsSync(dest) && !options.force) {
      throw new ConfigError(`${dest} exists; pass --force to replace it`);
    }
    const repoDir = join(resolve(options.reposDir), ...value.repo.split("/"));
    if (!statSync(repoDir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new InputError({ ...where, field: "repo" }, `no repository at ${repoDir}`);
    }
    const tmp = mkdtempSync(join(outDir, `.${value.instance_id}.import-`));
    try {
      await buildPack(value, repoDir, tmp, options, where);
      if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
      renameSync(tmp, dest);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    try {
      loadTaskPack(dest);
    } catch (e) {
      rmSync(dest, { recursive: true, force: true });
      if (e instanceof InputError)
        throw new InputError({ ...where, field: e.location.field }, `imported task is invalid: ${e.detail}`);
      throw e;
    }
    imported.push(value.instance_id);
  }
  return imported;
}

async function buildPack(
  instance: SweBenchInstance,
  repoDir: string,
  dir: string,
  options: ImportOptions,
  where: { file: string; line: number },
): Promise<void> {
  try {
    await exportTree(repoDir, instance.base_commit, join(dir, "repo"));
  } catch (e) {
    if (e instanceof InputError) throw new InputError({ ...where, field: "base_commit" }, e.detail);
    throw e;
  }
  await writeHiddenTests(instance.test_patch, join(dir, "repo"), join(dir, "tests"), where);
  const language = normalizeLanguage(instance.language, where);
  const spec = TaskSpec.safeParse({
    schemaVersion: 1,
    id: instance.instance_id,
    statement: instance.problem_statement,
    language,
    test: {
      command: options.testCommand ?? (language === "python" ? PYTEST_COMMAND : NODE_COMMAND),
      report: "junit",
    },
    failToPass: instance.FAIL_TO_PASS,
    passToPass: instance.PASS_TO_PASS,
    timeoutSec: options.timeoutSec ?? 300,
    protectedPaths: [],
  });
  if (!spec.success) {
    const issue = spec.error.issues[0]!;
    const field = { failToPass: "FAIL_TO_PASS", passToPass: "PASS_TO_PASS", statement: "problem_statement" }[
      String(issue.path[0])
    ];
    throw new InputError({ ...where, field: field ?? issue.path.join(".") }, issue.message);
  }
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(spec.data, null, 2)}\n`);
  writeFileSync(join(dir, "reference.patch"), instance.patch);
}

/** Applies the test patch to a scratch copy of the files it touches and keeps their new state. */
async function writeHiddenTests(
  testPatch: string,
  repo: string,
  testsDir: string,
  where: { file: string; line: number },
) {
  let files: ReturnType<typeof parseDiff>;
  try {
    files = parseDiff(testPatch);
  } catch (e) {
    throw new InputError({ ...where, field: "test_patch" }, (e as Error).message);
  }
  const scratch = mkdtempSync(join(dirname(testsDir), ".test-patch-"));
  try {
    for (const f of files) {
      for (const p of [f.oldPath, f.newPath]) {
        const why = p === null ? null : forbiddenReason(p);
        if (why)
          throw new InputError(
            { ...where, field: "test_patch" },
            `unsafe path ${JSON.stringify(p)} (${why})`,
          );
      }
      if (f.oldPath && existsSync(join(repo, f.oldPath))) {
        mkdirSync(dirname(join(scratch, f.oldPath)), { recursive: true });
        copyFileSync(join(repo, f.oldPath), join(scratch, f.oldPath));
      }
    }
    writeFileSync(join(scratch, ".gagar-test.patch"), testPatch);
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
      throw new InputError({ ...where, field: "test_patch" }, `does not apply to base_commit: ${stderr}`);
    }
    mkdirSync(testsDir, { mode: 0o755 });
    for (const f of files) {
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

function normalizeLanguage(
  language: string | undefined,
  where: { file: string; line: number },
): TaskSpec["language"] {
  const l = (language ?? "python").toLowerCase();
  if (l === "python" || l === "py") return "python";
  if (l === "javascript" || l === "js") return "javascript";
  if (l === "typescript" || l === "ts") return "typescript";
  throw new InputError(
    { ...where, field: "language" },
    `"${language}" is not supported (python, javascript, typescript)`,
  );
}
