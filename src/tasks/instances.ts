import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import {
  EnvironmentSpec,
  type MissingPassToPass,
  TaskSpecInput,
  TEST_RUNNERS,
  type TestRunnerName,
} from "../contracts/task-spec.ts";
import { type FileDiff, parseDiff } from "../diff/parse.ts";
import { ConfigError, InputError } from "../errors.ts";
import { readJsonlAll } from "../io/jsonl.ts";
import { forbiddenReason } from "../verify/gate/protected-paths.ts";
import { splitCommand } from "../verify/pack/argv-split.ts";
import { commandOf } from "../verify/pack/task-pack.ts";
import { runnerNamed } from "../verify/runners/registry.ts";
import { type Benchmark, detectBenchmark, missingPassToPassOf, toTaskId } from "./benchmark-ids.ts";

/**
 * The records of a `gagar tasks import` file, read and checked as a whole before anything is built or
 * run: a bad record stops the import with its line and field (exit 2) and nothing is written.
 *
 * Records are SWE-bench's (`instance_id`, `repo`, `base_commit`, `patch`, `test_patch`,
 * `problem_statement`, `FAIL_TO_PASS`, `PASS_TO_PASS`), SWE-PolyBench's (the same, ids `file:Class:test`
 * or mocha full titles) or Multi-SWE-bench's (`org`, `repo`, `number`, `base.sha`, `fix_patch`,
 * `*_tests`, `resolved_issues`). Multi-SWE-bench's harness counts a test that was failing (`f2p`),
 * skipped (`s2p`) or not there at all (`n2p`, a new test) before the fix and passes after it as fixed,
 * and gagar's failToPass means the same (a skipped or missing test fails), so all three form
 * FAIL_TO_PASS; `p2p` is PASS_TO_PASS. Its statement is the resolved issues' titles and bodies, else the
 * pull request's. Lists may be JSON lists or JSON-encoded strings (as in the public datasets).
 *
 * A record may name how its task runs, so that one file can hold repositories that test differently:
 * `runner`, `test_command` (argv, or one string split like a shell's words, with the runner's
 * placeholders) and `environment` (task.json's form). Otherwise the command-line defaults apply: the
 * runner from `--runner`, else the language (pytest for Python, node:test otherwise); the command from
 * `--test-command`, else the runner's own; the environment from `--environments` (by repository),
 * else `--environment`, else the host.
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

const commandLine = z.union([
  z.array(z.string().min(1)).min(1),
  z.string().transform((text, ctx) => {
    try {
      const argv = splitCommand(text);
      if (argv.length) return argv;
      ctx.addIssue({ code: "custom", message: "empty command" });
    } catch (e) {
      ctx.addIssue({ code: "custom", message: (e as Error).message });
    }
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

const Record_ = z.looseObject({
  instance_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only"),
  repo: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, "expected owner/name"),
  base_commit: z.string().regex(/^[0-9a-fA-F]{7,64}$/, "expected a commit id"),
  patch: z
    .string()
    .refine((p) => p.trim() !== "", "the reference patch is empty: nothing shows the task can be solved"),
  test_patch: z.string().min(1),
  FAIL_TO_PASS: idList.optional(),
  PASS_TO_PASS: idList.optional(),
  problem_statement: z.string().min(1),
  language: z.string().optional(),
  runner: z.enum(TEST_RUNNERS).optional(),
  test_command: commandLine.optional(),
  environment: EnvironmentSpec.optional(),
});
export const SweBenchInstance = z.preprocess(fromMultiSweBench, Record_);
export type SweBenchInstance = z.output<typeof Record_>;

/** Where a record is, for messages. */
export interface RecordAt {
  file: string;
  line: number;
}

/** One record, resolved into what its task pack will be. */
export interface ImportInstance {
  where: RecordAt;
  id: string;
  repo: string;
  repoDir: string;
  baseCommit: string;
  patch: string;
  testPatch: string;
  /** The files `test_patch` touches (parsed, paths checked). */
  testFiles: FileDiff[];
  statement: string;
  language: string;
  runner: TestRunnerName;
  /** The record's or `--test-command`'s; undefined: the runner's own. */
  command?: string[];
  environment: EnvironmentSpec;
  /** In the runner's id space; undefined: derived by running. */
  failToPass?: string[];
  passToPass: string[];
  benchmark: Benchmark;
  missingPassToPass: MissingPassToPass;
  /** The task folder it becomes. */
  dest: string;
}

export interface InstanceDefaults {
  reposDir: string;
  outDir: string;
  force?: boolean;
  runner?: TestRunnerName;
  testCommand?: string[];
  environment?: EnvironmentSpec;
  repoEnvironments?: Record<string, EnvironmentSpec>;
  /** The benchmark the records come from (default: detected per record, benchmark-ids.ts). */
  benchmark?: Benchmark;
}

/**
 * Reads and checks every record: its fields, its runner's command, its test patch's paths, a unique
 * id, a repository holding its base commit, and a free destination (unless `force`). Throws the first
 * problem as an InputError (ConfigError for an existing destination).
 */
export async function readInstances(file: string, defaults: InstanceDefaults): Promise<ImportInstance[]> {
  const records = await readJsonlAll(file, SweBenchInstance);
  const outDir = resolve(defaults.outDir);
  const reposDir = resolve(defaults.reposDir);
  const seen = new Map<string, number>();
  const instances: ImportInstance[] = [];
  for (const { value, line } of records) {
    const where = { file, line };
    const at = (field: string) => ({ ...where, field });
    const first = seen.get(value.instance_id);
    if (first !== undefined)
      throw new InputError(at("instance_id"), `duplicate instance_id (first at line ${first})`);
    seen.set(value.instance_id, line);
    const repoDir = join(reposDir, ...value.repo.split("/"));
    if (!statSync(repoDir, { throwIfNoEntry: false })?.isDirectory())
      throw new InputError(at("repo"), `no repository at ${repoDir}`);
    const dest = join(outDir, value.instance_id);
    if (existsSync(dest) && !defaults.force)
      throw new ConfigError(`${dest} exists; pass --force to replace it`);
    const language = normalizeLanguage(value.language, where);
    const runner = value.runner ?? defaults.runner ?? (language === "python" ? "pytest" : "node:test");
    const command = value.test_command ?? defaults.testCommand;
    const environment = value.environment ??
      defaults.repoEnvironments?.[value.repo] ??
      defaults.environment ?? { kind: "host" as const };
    const ids = (list: string[] | undefined) => list?.map((id) => toTaskId(id, runner));
    const failToPass = ids(value.FAIL_TO_PASS);
    const passToPass = ids(value.PASS_TO_PASS) ?? [];
    const benchmark =
      defaults.benchmark ??
      detectBenchmark(value, [...(value.FAIL_TO_PASS ?? []), ...(value.PASS_TO_PASS ?? [])]);
    const instance: ImportInstance = {
      where,
      id: value.instance_id,
      repo: value.repo,
      repoDir,
      baseCommit: value.base_commit,
      patch: value.patch,
      testPatch: value.test_patch,
      testFiles: testPatchFiles(value.test_patch, at("test_patch")),
      statement: value.problem_statement,
      language,
      runner,
      ...(command && { command }),
      environment,
      ...(failToPass && { failToPass }),
      passToPass,
      benchmark,
      missingPassToPass: missingPassToPassOf(benchmark),
      dest,
    };
    try {
      commandOf(specOf(instance), runnerNamed(runner), file);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      // Said of the record's field, or of the flag the value came from.
      const [field, flag] = e.location.field?.startsWith("test.command")
        ? ["test_command", "--test-command"]
        : ["runner", "--runner"];
      if (value[field as "runner" | "test_command"] !== undefined) throw new InputError(at(field), e.detail);
      throw new InputError({ file: flag }, `for ${file}:${line}: ${e.detail}`);
    }
    instances.push(instance);
  }
  checkBaseCommits(instances);
  return instances;
}

/**
 * The task.json an instance starts as. Without lists it holds a placeholder failToPass (a task.json
 * must list one) until the lists are derived by running.
 */
export function specOf(instance: ImportInstance, lists?: { failToPass: string[]; passToPass: string[] }) {
  const { where } = instance;
  const spec = TaskSpecInput.safeParse({
    schemaVersion: 2,
    id: instance.id,
    statement: instance.statement,
    language: instance.language,
    test: {
      runner: instance.runner,
      ...(instance.command && { command: instance.command }),
      report: "junit",
    },
    environment: instance.environment,
    failToPass: lists?.failToPass ?? instance.failToPass ?? [DERIVED],
    passToPass: lists?.passToPass ?? instance.passToPass,
    missingPassToPass: instance.missingPassToPass,
    protectedPaths: [],
  });
  if (!spec.success) {
    const issue = spec.error.issues[0]!;
    const head = String(issue.path[0]);
    const field =
      {
        failToPass: "FAIL_TO_PASS",
        passToPass: "PASS_TO_PASS",
        statement: "problem_statement",
        environment: "environment",
      }[head] ?? issue.path.join(".");
    const index = head === "failToPass" || head === "passToPass" ? issue.path.slice(1).join(".") : "";
    throw new InputError({ ...where, field: index ? `${field}.${index}` : field }, issue.message);
  }
  return spec.data;
}

/** The failToPass a task.json holds until its lists are derived. */
export const DERIVED = "(derived by running)";

/** The files a test patch touches, its paths checked. */
function testPatchFiles(testPatch: string, at: RecordAt & { field: string }): FileDiff[] {
  let files: FileDiff[];
  try {
    files = parseDiff(testPatch);
  } catch (e) {
    throw new InputError(at, (e as Error).message);
  }
  for (const f of files) {
    for (const p of [f.oldPath, f.newPath]) {
      const why = p === null ? null : forbiddenReason(p);
      if (why) throw new InputError(at, `unsafe path ${JSON.stringify(p)} (${why})`);
    }
  }
  return files;
}

/** Every base commit must be in its repository: one `git cat-file --batch-check` per repository. */
function checkBaseCommits(instances: readonly ImportInstance[]): void {
  const byRepo = new Map<string, ImportInstance[]>();
  for (const i of instances) byRepo.set(i.repoDir, [...(byRepo.get(i.repoDir) ?? []), i]);
  for (const [repoDir, members] of byRepo) {
    let out: string;
    try {
      out = execFileSync(
        "git",
        ["-c", "core.hooksPath=/dev/null", "cat-file", "--batch-check=%(objecttype)"],
        {
          cwd: repoDir,
          input: members.map((i) => `${i.baseCommit}^{commit}\n`).join(""),
          encoding: "utf8",
          env: {
            PATH: "/usr/local/bin:/usr/bin:/bin",
            GIT_CONFIG_NOSYSTEM: "1",
            GIT_CONFIG_GLOBAL: "/dev/null",
            GIT_CEILING_DIRECTORIES: resolve(repoDir, ".."),
          },
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
    } catch (e) {
      const stderr = String((e as { stderr?: string }).stderr ?? "").trim();
      throw new InputError(
        { ...members[0]!.where, field: "repo" },
        `${repoDir} is not a git repository${stderr ? ` (${stderr.split("\n")[0]})` : ""}`,
      );
    }
    const answers = out.split("\n");
    members.forEach((instance, i) => {
      if (answers[i] !== "commit")
        throw new InputError(
          { ...instance.where, field: "base_commit" },
          `commit ${instance.baseCommit} is not in ${repoDir}`,
        );
    });
  }
}

function normalizeLanguage(language: string | undefined, where: RecordAt): string {
  const l = (language ?? "python").toLowerCase();
  if (l === "python" || l === "py") return "python";
  if (l === "javascript" || l === "js") return "javascript";
  if (l === "typescript" || l === "ts") return "typescript";
  if (!/^[a-z][a-z0-9+#._-]*$/.test(l))
    throw new InputError({ ...where, field: "language" }, `"${language}" is not a language name`);
  return l;
}
