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
import { EnvironmentSpec, TaskSpecInput, TEST_RUNNERS } from "../contracts/task-spec.ts";
import { parseDiff } from "../diff/parse.ts";
import { ConfigError, InputError } from "../errors.ts";
import { readJsonlAll } from "../io/jsonl.ts";
import { exportTree } from "../verify/git-tree-export.ts";
import { forbiddenReason } from "../verify/protected-paths.ts";
import { runnerNamed } from "../verify/runners/registry.ts";
import { saveCheck } from "../verify/task-check-file.ts";
import { listHiddenTests, loadTaskPack, type TaskPack } from "../verify/task-pack.ts";
import type { Verifier } from "../verify/verifier.ts";
import { toTaskId } from "./benchmark-ids.ts";
import { checkTask, describeCheck } from "./check.ts";
import { deriveLists } from "./derive.ts";

const run = promisify(execFile);

/**
 * `gagar tasks import`: SWE-bench-style instances → task packs.
 *
 * For each instance: `repo/` is the tree of `base_commit` in the git repository `<repos>/<repo>`
 * (git-tree-export.ts: no history); `tests/` holds every file `test_patch` creates or changes, at its
 * post-patch state (the patch is applied with `git apply` to a scratch copy of just those files, never
 * to the repository); `patch` becomes reference.patch; `FAIL_TO_PASS`/`PASS_TO_PASS` may be JSON lists
 * or JSON-encoded strings (as in the public datasets), in the SWE-bench, SWE-PolyBench or
 * Multi-SWE-bench id forms (benchmark-ids.ts). Multi-SWE-bench records (`org`, `repo`, `number`,
 * `base.sha`, `fix_patch`, `*_tests`, `resolved_issues`) are read as the same fields: its harness
 * counts a test that was failing (`f2p`), skipped (`s2p`) or not there at all (`n2p`, a new test)
 * before the fix and passes after it as fixed, and gagar's failToPass means the same (a skipped or
 * missing test fails), so all three form FAIL_TO_PASS; `p2p` is PASS_TO_PASS. The statement is the
 * resolved issues' titles and bodies, else the pull request's.
 *
 * The runner comes from the instance's `runner`, else `--runner`, else the language (pytest for Python,
 * node:test otherwise); the environment from the instance's `environment`, else the repository's entry
 * in `--environments` (a JSON file `{"owner/repo": <environment>}`), else `--environment`, else the host.
 *
 * An instance without FAIL_TO_PASS is run (it needs a verifier): the base with the hidden tests, then
 * the reference; the lists are what changed (derive.ts). With `check`, every imported task is run the
 * same way and its result kept in check.json, so that a task whose given lists do not hold is never
 * scored. Each pack is written to a temporary folder and renamed into place once it loads cleanly, so a
 * failed import leaves no half-written task behind.
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

/** Multi-SWE-bench's field names, read as SWE-bench's. */
function fromMultiSweBench(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const r = raw as Record<string, unknown>;
  if (!("fix_patch" in r) || "patch" in r) return raw;
  const base = r.base as { sha?: unknown } | undefined;
  const keys = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v) : v);
  const fixed = [r.f2p_tests, r.s2p_tests, r.n2p_tests].filter((v) => v !== undefined).map(keys);
  return {
    ...r,
    instance_id: r.instance_id ?? `${r.org}__${r.repo}-${r.number}`,
    repo: typeof r.org === "string" && typeof r.repo === "string" ? `${r.org}/${r.repo}` : r.repo,
    base_commit: r.base_commit ?? base?.sha,
    patch: r.fix_patch,
    FAIL_TO_PASS: r.FAIL_TO_PASS ?? unionOf(fixed),
    PASS_TO_PASS: r.PASS_TO_PASS ?? keys(r.p2p_tests),
    problem_statement: r.problem_statement ?? multiSweBenchStatement(r),
  };
}

/**
 * The lists' ids in order, each once; undefined without lists. A value that is not a list is passed
 * on as it is, so that the schema names the field.
 */
function unionOf(lists: unknown[]): unknown {
  if (lists.length === 0) return undefined;
  const bad = lists.find((l) => !Array.isArray(l));
  if (bad !== undefined) return bad;
  return [...new Set(lists.flat())];
}

/** The resolved issues' titles and bodies, else the pull request's; empty parts are left out. */
function multiSweBenchStatement(r: Record<string, unknown>): string | undefined {
  const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const both = (o: { title?: unknown; body?: unknown }) =>
    [text(o.title), text(o.body)].filter(Boolean).join("\n\n");
  const issues = Array.isArray(r.resolved_issues) ? (r.resolved_issues as unknown[]) : [];
  const statement = issues
    .map((i) => (i && typeof i === "object" ? both(i) : ""))
    .filter(Boolean)
    .join("\n\n");
  return statement || both(r) || undefined;
}

const Instance = z.looseObject({
  instance_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only"),
  repo: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, "expected owner/name"),
  base_commit: z.string().regex(/^[0-9a-fA-F]{7,64}$/, "expected a commit id"),
  patch: z.string(),
  test_patch: z.string().min(1),
  FAIL_TO_PASS: idList.optional(),
  PASS_TO_PASS: idList.optional(),
  problem_statement: z.string().min(1),
  language: z.string().optional(),
  runner: z.enum(TEST_RUNNERS).optional(),
  environment: EnvironmentSpec.optional(),
});
export const SweBenchInstance = z.preprocess(fromMultiSweBench, Instance);
export type SweBenchInstance = z.output<typeof Instance>;

export interface ImportOptions {
  reposDir: string;
  outDir: string;
  testCommand?: string[];
  timeoutSec?: number;
  /** Replace task folders that already exist. */
  force?: boolean;
  /** The runner of instances that name none (default: by language). */
  runner?: (typeof TEST_RUNNERS)[number];
  /** The environment of instances that name none and whose repository has no entry in `repoEnvironments`. */
  environment?: EnvironmentSpec;
  /** Environments by repository (`owner/name`). */
  repoEnvironments?: Record<string, EnvironmentSpec>;
  /** Runs tasks: to derive missing lists, and to check every task when `check` is set. */
  verifier?: Verifier;
  check?: boolean;
  log?: (message: string) => void;
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
      if (value.FAIL_TO_PASS === undefined) await deriveInto(tmp, value, options, where);
      if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
      renameSync(tmp, dest);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    let pack: TaskPack;
    try {
      pack = loadTaskPack(dest);
    } catch (e) {
      rmSync(dest, { recursive: true, force: true });
      if (e instanceof InputError)
        throw new InputError({ ...where, field: e.location.field }, `imported task is invalid: ${e.detail}`);
      throw e;
    }
    if (options.check && options.verifier) {
      const check = await checkTask(options.verifier, pack);
      saveCheck(pack, check);
      if (!check.valid) options.log?.(describeCheck(check).trimEnd());
    }
    imported.push(value.instance_id);
  }
  return imported;
}

/**
 * Runs the base (with the hidden tests) and the reference, and writes what changed as the task's
 * failToPass/passToPass. Refuses an instance whose reference makes no test pass that failed before.
 */
async function deriveInto(
  dir: string,
  instance: SweBenchInstance,
  options: ImportOptions,
  where: { file: string; line: number },
): Promise<void> {
  const field = { ...where, field: "FAIL_TO_PASS" };
  if (!options.verifier)
    throw new InputError(
      field,
      "missing: pass a sandbox to derive the lists by running the tests (gagar tasks import --sandbox)",
    );
  const spec = TaskSpecInput.parse(JSON.parse(readFileSync(join(dir, "task.json"), "utf8")));
  const runner = runnerNamed(spec.test.runner);
  const pack: TaskPack = {
    dir,
    spec,
    runner,
    command: spec.test.command ?? [...runner.defaultCommand],
    repoDir: join(dir, "repo"),
    testsDir: join(dir, "tests"),
    hiddenTests: listHiddenTests(join(dir, "tests")),
    referencePatch: instance.patch,
  };
  options.log?.(`${instance.instance_id}: deriving FAIL_TO_PASS/PASS_TO_PASS by running the tests`);
  const before = await options.verifier.verify(pack, "", { observe: true });
  const after = await options.verifier.verify(pack, instance.patch, { observe: true });
  const lists = deriveLists(before.observed ?? {}, after.observed ?? {});
  if (lists.failToPass.length === 0) {
    const why =
      after.passed || after.reason === "tests-failed"
        ? "no test fails without the fix and passes with it"
        : `the reference run ${after.reason}: ${after.detail ?? ""}`;
    throw new InputError(field, `cannot derive: ${why}${after.outputTail ? `\n${after.outputTail}` : ""}`);
  }
  writeFileSync(join(dir, "task.json"), `${JSON.stringify({ ...spec, ...lists }, null, 2)}\n`);
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
  const runner = instance.runner ?? options.runner ?? (language === "python" ? "pytest" : "node:test");
  const environment = instance.environment ??
    options.repoEnvironments?.[instance.repo] ??
    options.environment ?? { kind: "host" };
  const ids = (list: string[] | undefined) => (list ?? []).map((id) => toTaskId(id, runner));
  const spec = TaskSpecInput.safeParse({
    schemaVersion: 2,
    id: instance.instance_id,
    statement: instance.problem_statement,
    language,
    test: { runner, ...(options.testCommand && { command: options.testCommand }), report: "junit" },
    environment,
    // Placeholder until derived (deriveInto): the lists must not be empty in a task.json.
    failToPass: instance.FAIL_TO_PASS ? ids(instance.FAIL_TO_PASS) : ["(derived)"],
    passToPass: ids(instance.PASS_TO_PASS),
    timeoutSec: options.timeoutSec ?? 300,
    protectedPaths: [],
  });
  if (!spec.success) {
    const issue = spec.error.issues[0]!;
    const field = {
      failToPass: "FAIL_TO_PASS",
      passToPass: "PASS_TO_PASS",
      statement: "problem_statement",
      environment: "environment",
    }[String(issue.path[0])];
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

function normalizeLanguage(language: string | undefined, where: { file: string; line: number }): string {
  const l = (language ?? "python").toLowerCase();
  if (l === "python" || l === "py") return "python";
  if (l === "javascript" || l === "js") return "javascript";
  if (l === "typescript" || l === "ts") return "typescript";
  if (!/^[a-z][a-z0-9+#._-]*$/.test(l))
    throw new InputError({ ...where, field: "language" }, `"${language}" is not a language name`);
  return l;
}
