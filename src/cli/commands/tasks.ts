import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { createLimiter } from "../../concurrency/limiter.ts";
import { EnvironmentSpec, TEST_RUNNERS, type TestRunnerName } from "../../contracts/task-spec.ts";
import { InputError, SandboxError } from "../../errors.ts";
import { parseRecord } from "../../io/validate.ts";
import { BACKEND_NAMES, type BackendName, selectBackend } from "../../sandbox/select.ts";
import { checkTask, describeCheck, type TaskCheck } from "../../tasks/check.ts";
import { importSweBench } from "../../tasks/import.ts";
import { splitCommand } from "../../verify/argv-split.ts";
import { saveCheck } from "../../verify/task-check-file.ts";
import { loadTaskPacks } from "../../verify/task-pack.ts";
import { Verifier } from "../../verify/verifier.ts";
import { integerAtLeast, numberIn } from "../options.ts";
import { renderTable } from "../table.ts";
import { exitOnSignals } from "./verify.ts";

interface ImportFlags {
  repos: string;
  out: string;
  testCommand?: string[];
  timeout: number;
  force?: boolean;
  runner?: TestRunnerName;
  environment?: string;
  environments?: string;
  check?: boolean;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
}

interface CheckFlags {
  run?: boolean;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
  jobs: number;
}

export function registerTasks(program: Command): void {
  const tasks = program.command("tasks").description("create and check task packs");

  tasks
    .command("import")
    .description("import SWE-bench-style instances (JSONL) as task packs")
    .argument(
      "<instances>",
      "JSONL with instance_id, repo, base_commit, patch, test_patch, problem_statement and optionally FAIL_TO_PASS, PASS_TO_PASS, runner, environment (SWE-bench, SWE-PolyBench or Multi-SWE-bench records)",
    )
    .requiredOption(
      "--repos <dir>",
      "folder of git repositories: an instance's repository is <dir>/<repo> (e.g. <dir>/astropy/astropy)",
    )
    .requiredOption("--out <dir>", "folder to write the task packs to (one folder per instance)")
    .option(
      "--test-command <cmd>",
      "test command with the runner's placeholders (default: the runner's own command)",
      parseCommand,
    )
    .addOption(
      new Option(
        "--runner <name>",
        "runner of instances that name none (default: pytest for Python, node:test otherwise)",
      ).choices([...TEST_RUNNERS]),
    )
    .option("--environment <json|file>", "environment of instances that name none (task.json form)")
    .option("--environments <file>", 'JSON file of environments by repository: {"owner/name": {...}}')
    .option(
      "--check",
      "run every imported task and keep the result in check.json (invalid tasks are never scored)",
    )
    .addOption(
      new Option("--sandbox <backend>", "sandbox for deriving missing lists and for --check")
        .choices([...BACKEND_NAMES])
        .default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed")
    .option("--timeout <sec>", "timeoutSec of every imported task", numberIn(1, 3600, true), 300)
    .option("--force", "replace task folders that already exist")
    .action(async (instances: string, flags: ImportFlags) => {
      const warn = (m: string) => process.stderr.write(`${m}\n`);
      const environment = flags.environment ? readEnvironment(flags.environment, "--environment") : undefined;
      const repoEnvironments = flags.environments
        ? parseFlagJson(flags.environments, "--environments", z.record(z.string(), EnvironmentSpec))
        : undefined;
      const needsRuns = flags.check || (await anyInstanceWithoutLists(instances));
      const sandbox = needsRuns
        ? await selectBackend(flags.sandbox, { allowUnsandboxed: flags.allowUnsandboxed, warn })
        : undefined;
      const verifier = sandbox && new Verifier({ sandbox, warn, log: warn });
      const restoreSignals = exitOnSignals();
      let ids: string[];
      try {
        ids = await importSweBench(instances, {
          reposDir: flags.repos,
          outDir: flags.out,
          testCommand: flags.testCommand,
          timeoutSec: flags.timeout,
          force: flags.force,
          runner: flags.runner,
          environment,
          repoEnvironments,
          verifier,
          check: flags.check,
          log: warn,
        });
      } finally {
        await verifier?.close();
        restoreSignals();
      }
      process.stderr.write(`imported ${ids.length} tasks into ${flags.out}\n`);
    });

  tasks
    .command("check")
    .description(
      "validate task packs; with --run, run each task: its reference must pass, the empty patch fail, every listed test id run (the result is kept in check.json; gagar verify refuses tasks found invalid)",
    )
    .argument("<dir>", "a folder of task folders, or one task folder")
    .option("--run", "verify reference and empty patches in the sandbox")
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend for --run")
        .choices([...BACKEND_NAMES])
        .default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed")
    .option("--jobs <n>", "parallel sandboxes for --run", integerAtLeast(1), 1)
    .action(async (dir: string, flags: CheckFlags) => {
      const packs = loadTaskPacks(dir);
      const rows = [...packs.values()].map((p) => [
        p.spec.id,
        p.spec.language,
        p.spec.failToPass.length,
        p.spec.passToPass.length,
        p.hiddenTests.length,
        p.referencePatch === undefined ? "no" : "yes",
      ]);
      process.stderr.write(
        `${renderTable(["task", "language", "F2P", "P2P", "hidden", "reference"], rows, "  ")}\n`,
      );
      process.stderr.write(`${packs.size} task packs are valid\n`);
      if (!flags.run) return;
      const warn = (m: string) => process.stderr.write(`${m}\n`);
      const sandbox = await selectBackend(flags.sandbox, { allowUnsandboxed: flags.allowUnsandboxed, warn });
      const restoreSignals = exitOnSignals();
      const verifier = new Verifier({ sandbox, warn, log: warn });
      const limit = createLimiter(flags.jobs);
      let checks: TaskCheck[];
      try {
        await verifier.selfTest();
        checks = await Promise.all([...packs.values()].map((p) => limit(() => checkTask(verifier, p))));
      } finally {
        await verifier.close();
        restoreSignals();
      }
      for (const check of checks) saveCheck(packs.get(check.taskId)!, check);
      const invalid = checks.filter((c) => !c.valid);
      for (const check of invalid) process.stderr.write(describeCheck(check));
      if (invalid.length) {
        throw new SandboxError(
          `${invalid.length} of ${checks.length} tasks are invalid (${invalid.map((c) => c.taskId).join(", ")}); gagar verify will not score them until a check passes`,
          false,
        );
      }
      process.stderr.write(
        `all ${checks.length} tasks are valid: every reference patch passes, every empty patch fails, every listed test runs\n`,
      );
    });
}

/** An environment given inline (`{"kind": …}`) or as a JSON file. */
function readEnvironment(raw: string, flag: string): EnvironmentSpec {
  return parseFlagJson(raw, flag, EnvironmentSpec);
}

function parseFlagJson<T>(raw: string, flag: string, schema: z.ZodType<T>): T {
  const text = raw.trim().startsWith("{") ? raw : readFileSync(raw, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError(
      { file: raw.trim().startsWith("{") ? flag : raw },
      `not valid JSON (${(e as Error).message})`,
    );
  }
  return parseRecord(schema, json, { file: raw.trim().startsWith("{") ? flag : raw });
}

/** Whether some instance lacks FAIL_TO_PASS (then the import must run tests, and needs a sandbox). */
async function anyInstanceWithoutLists(file: string): Promise<boolean> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false; // the import names the file and what is wrong with it
  }
  return text.split("\n").some((line) => line.trim() && !/"(FAIL_TO_PASS|[fsn]2p_tests)"/.test(line));
}

function parseCommand(raw: string): string[] {
  try {
    const argv = splitCommand(raw);
    if (argv.length === 0) throw new Error("empty command");
    return argv;
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
