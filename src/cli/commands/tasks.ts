import { type Command, InvalidArgumentError, Option } from "commander";
import type { Rollout } from "../../contracts/rollout.ts";
import { SandboxError } from "../../errors.ts";
import { BACKEND_NAMES, type BackendName, selectBackend } from "../../sandbox/select.ts";
import { splitCommand } from "../../verify/argv-split.ts";
import { importSweBench } from "../../verify/swebench-import.ts";
import { loadTaskPacks } from "../../verify/task-pack.ts";
import { verifyRollouts } from "../../verify/verify-rollouts.ts";
import { integerAtLeast, numberIn } from "../options.ts";
import { renderTable } from "../table.ts";
import { exitOnSignals } from "./verify.ts";

interface ImportFlags {
  repos: string;
  out: string;
  testCommand?: string[];
  timeout: number;
  force?: boolean;
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
      "JSONL with instance_id, repo, base_commit, patch, test_patch, FAIL_TO_PASS, PASS_TO_PASS, problem_statement",
    )
    .requiredOption(
      "--repos <dir>",
      "folder of git repositories: an instance's repository is <dir>/<repo> (e.g. <dir>/astropy/astropy)",
    )
    .requiredOption("--out <dir>", "folder to write the task packs to (one folder per instance)")
    .option(
      "--test-command <cmd>",
      "test command with {junit} and {tests} (default: pytest for Python, node --test for JS)",
      parseCommand,
    )
    .option("--timeout <sec>", "timeoutSec of every imported task", numberIn(1, 3600, true), 300)
    .option("--force", "replace task folders that already exist")
    .action(async (instances: string, flags: ImportFlags) => {
      const ids = await importSweBench(instances, {
        reposDir: flags.repos,
        outDir: flags.out,
        testCommand: flags.testCommand,
        timeoutSec: flags.timeout,
        force: flags.force,
      });
      process.stderr.write(`imported ${ids.length} tasks into ${flags.out}\n`);
    });

  tasks
    .command("check")
    .description(
      "validate task packs; with --run, also check that each reference patch passes and the empty patch fails",
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
      const rollouts: Rollout[] = [];
      for (const p of packs.values()) {
        if (p.referencePatch !== undefined)
          rollouts.push({ id: `${p.spec.id}/reference`, taskId: p.spec.id, patch: p.referencePatch });
        rollouts.push({ id: `${p.spec.id}/empty`, taskId: p.spec.id, patch: "" });
      }
      const restoreSignals = exitOnSignals();
      const verdicts = await verifyRollouts(rollouts, {
        tasks: packs,
        sandbox,
        jobs: flags.jobs,
        warn,
      }).finally(restoreSignals);
      const problems = verdicts.filter((v) => v.rolloutId.endsWith("/reference") !== v.passed);
      const table = verdicts.map((v) => [v.rolloutId, v.reason, v.detail ?? ""]);
      process.stderr.write(`${renderTable(["patch", "verdict", "detail"], table, "  ")}\n`);
      if (problems.length) {
        throw new SandboxError(
          `${problems.length} checks failed (a reference patch must pass, an empty patch must fail): ${problems.map((v) => v.rolloutId).join(", ")}`,
          false,
        );
      }
      process.stderr.write("every reference patch passes and every empty patch fails\n");
    });
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
