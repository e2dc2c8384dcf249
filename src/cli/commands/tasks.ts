import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { createLimiter } from "../../concurrency/limiter.ts";
import { EnvironmentSpec, TEST_RUNNERS, type TestRunnerName } from "../../contracts/task-spec.ts";
import { ConfigError, InputError, TaskFaultError } from "../../errors.ts";
import { renderTable } from "../../io/table.ts";
import { parseRecord } from "../../io/validate.ts";
import { BACKEND_NAMES, type BackendName, selectBackend } from "../../sandbox/select.ts";
import { BENCHMARKS, type Benchmark } from "../../tasks/benchmark-ids.ts";
import { checkTask, describeCheck, describeNotes, type TaskCheck } from "../../tasks/check.ts";
import { type ImportReport, importSweBench } from "../../tasks/import.ts";
import { splitCommand } from "../../verify/pack/argv-split.ts";
import { currentCheck, saveCheck } from "../../verify/pack/task-check-file.ts";
import { loadTaskPacks } from "../../verify/pack/task-pack.ts";
import { Verifier } from "../../verify/verifier.ts";
import { numberIn, sandboxJobs } from "../options.ts";
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
  benchmark?: Benchmark;
  check?: boolean;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
}

interface CheckFlags {
  run?: boolean;
  save?: boolean;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
  jobs: number;
}

export function registerTasks(program: Command): void {
  const tasks = program.command("tasks").description("create and check task packs");
  registerTasksImport(tasks);
  registerTasksCheck(tasks);
}

/** `gagar tasks import`: benchmark instances → task packs. */
function registerTasksImport(tasks: Command): void {
  tasks
    .command("import")
    .description(
      "import SWE-bench-style instances (JSONL) as task packs; exits 3 when some instances could not be imported or (with --check) were found invalid, after trying every one",
    )
    .argument(
      "<instances>",
      "JSONL with instance_id, repo, base_commit, patch, test_patch, problem_statement and optionally FAIL_TO_PASS, PASS_TO_PASS, runner, test_command, environment (SWE-bench, SWE-PolyBench or Multi-SWE-bench records)",
    )
    .requiredOption(
      "--repos <dir>",
      "folder of git repositories: an instance's repository is <dir>/<repo> (e.g. <dir>/astropy/astropy)",
    )
    .requiredOption("--out <dir>", "folder to write the task packs to (one folder per instance)")
    .option(
      "--test-command <cmd>",
      "test command of instances that name none (test_command), with the runner's placeholders (default: the runner's own command)",
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
    .addOption(
      new Option(
        "--benchmark <name>",
        "the benchmark the records come from, for the defaults that follow it (missingPassToPass); default: told by each record's form",
      ).choices([...BENCHMARKS]),
    )
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
      let verifier: Verifier | undefined;
      const restoreSignals = exitOnSignals();
      let report: ImportReport;
      try {
        report = await importSweBench(instances, {
          reposDir: flags.repos,
          outDir: flags.out,
          testCommand: flags.testCommand,
          timeoutSec: flags.timeout,
          force: flags.force,
          runner: flags.runner,
          environment,
          repoEnvironments,
          benchmark: flags.benchmark,
          verifier: async () => {
            const sandbox = await selectBackend(flags.sandbox, {
              allowUnsandboxed: flags.allowUnsandboxed,
              warn,
            });
            verifier = new Verifier({ sandbox, warn, log: warn });
            return verifier;
          },
          check: flags.check,
          log: warn,
        });
      } finally {
        await verifier?.close();
        restoreSignals();
      }
      process.stderr.write(importSummary(report, flags.out));
      const { failed, invalid, total } = report;
      if (failed.length || invalid.length) {
        const parts = [
          failed.length &&
            `${failed.length} of ${total} instances not imported (${failed.map((f) => f.id).join(", ")})`,
          invalid.length &&
            `${invalid.length} imported tasks invalid (${invalid.map((c) => c.taskId).join(", ")}), kept but never scored until a check passes`,
        ].filter(Boolean);
        throw new TaskFaultError(parts.join("; "));
      }
    });
}

/** `gagar tasks check`: task packs validated, and with --run, checked by running. */
function registerTasksCheck(tasks: Command): void {
  tasks
    .command("check")
    .description(
      "validate task packs; with --run, run each task: its reference must pass, the empty patch fail, every listed test id run; exits 3 when some task is invalid (--save keeps the result in each task's check.json, and gagar verify refuses tasks found invalid)",
    )
    .argument("<dir>", "a folder of task folders, or one task folder")
    .option("--run", "verify reference and empty patches in the sandbox")
    .option(
      "--save",
      "with --run: write each task's result to its check.json (the pack is left untouched without it)",
    )
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend for --run")
        .choices([...BACKEND_NAMES])
        .default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed")
    .option("--jobs <n>", "parallel sandboxes for --run", sandboxJobs(), 1)
    .action(async (dir: string, flags: CheckFlags) => {
      if (flags.save && !flags.run)
        throw new ConfigError("--save needs --run: only a run has a result to save");
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
      process.stderr.write(
        `${packs.size} task packs are well-formed${flags.run ? "; running each (the empty patch, then the reference)" : ""}\n`,
      );
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
      const stale: string[] = [];
      for (const check of checks) {
        const pack = packs.get(check.taskId)!;
        if (flags.save) saveCheck(pack, check);
        else if (currentCheck(pack) && currentCheck(pack)!.valid !== check.valid) stale.push(check.taskId);
      }
      const invalid = checks.filter((c) => !c.valid);
      for (const check of invalid) process.stderr.write(describeCheck(check));
      for (const check of checks) if (check.valid) process.stderr.write(describeNotes(check));
      if (stale.length)
        warn(
          `check.json of ${stale.join(", ")} says otherwise (an earlier --save); pass --save to replace it`,
        );
      if (invalid.length) {
        throw new TaskFaultError(
          `${invalid.length} of ${checks.length} tasks are invalid (${invalid.map((c) => c.taskId).join(", ")}); ${flags.save ? "their check.json says so, and gagar verify will not score them until a check passes" : "pass --save to keep the result in their check.json, so that gagar verify refuses them"}`,
        );
      }
      process.stderr.write(
        `all ${checks.length} tasks are valid: every reference patch passes, every empty patch fails, every listed test runs${flags.save ? " (saved in check.json)" : ""}\n`,
      );
    });
}

const BENCHMARK_NAMES: Record<Benchmark, string> = {
  "swe-bench": "SWE-bench",
  "swe-polybench": "SWE-PolyBench",
  "multi-swe-bench": "Multi-SWE-bench",
};

/** What the import did, as printed: each failure with its output's last lines, each invalid task, the totals. */
function importSummary(report: ImportReport, out: string): string {
  const lines: string[] = [];
  for (const f of report.failed) {
    lines.push(`✗ ${f.id}: not imported: ${f.message}`);
    if (f.output)
      lines.push(
        "    what it printed:",
        ...f.output
          .trimEnd()
          .split("\n")
          .map((l) => `      ${l}`),
      );
  }
  const text = lines.length ? `${lines.join("\n")}\n` : "";
  const checks = report.invalid.map(describeCheck).join("") + report.notes.map(describeNotes).join("");
  const read = Object.entries(report.benchmarks)
    .map(([name, n]) => `${BENCHMARK_NAMES[name as Benchmark]}: ${n}`)
    .join(", ");
  return `${text}${checks}imported ${report.imported.length} of ${report.total} instances into ${out} (records read as ${read})\n`;
}

/** An environment given inline (`{"kind": …}`) or as a JSON file. */
function readEnvironment(raw: string, flag: string): EnvironmentSpec {
  return parseFlagJson(raw, flag, EnvironmentSpec);
}

function parseFlagJson<T>(raw: string, flag: string, schema: z.ZodType<T>): T {
  const inline = raw.trim().startsWith("{");
  const file = inline ? flag : raw;
  let text = raw;
  if (!inline) {
    try {
      text = readFileSync(raw, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new InputError(
        { file: `${flag} ${raw}` },
        code === "ENOENT" ? "no such file" : (e as Error).message,
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError({ file }, `not valid JSON (${(e as Error).message})`);
  }
  return parseRecord(schema, json, { file });
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
