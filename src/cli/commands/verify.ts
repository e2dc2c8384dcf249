import cliProgress from "cli-progress";
import { type Command, Option } from "commander";
import { Rollout } from "../../contracts/rollout.ts";
import type { Verdict } from "../../contracts/verdict.ts";
import { InputError, SandboxError } from "../../errors.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { readJsonlAll, toJsonlLine } from "../../io/jsonl.ts";
import { checkOutputFiles } from "../../io/output-paths.ts";
import { renderTable } from "../../io/table.ts";
import { BACKEND_NAMES, type BackendName, selectBackend } from "../../sandbox/select.ts";
import { loadTaskPacks, type TaskPack } from "../../verify/pack/task-pack.ts";
import { buildGroups } from "../../verify/verdict/groups.ts";
import { summaryRows } from "../../verify/verdict/summary.ts";
import { Verifier } from "../../verify/verifier.ts";
import { type VerifyProgress, verifyRollouts } from "../../verify/verify-rollouts.ts";
import { sandboxJobs } from "../options.ts";

interface VerifyFlags {
  tasks: string;
  rollouts: string;
  out: string;
  groupsOut?: string;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
  jobs: number;
  protected: "strip" | "reject";
  quiet?: boolean;
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description(
      "verify rollout patches against task packs in a sandbox (hidden tests, canaries) and write verdicts",
    )
    .requiredOption("--tasks <dir>", "task packs: a folder of task folders (task.json, repo/, tests/)")
    .requiredOption("--rollouts <file>", "rollouts JSONL: {id, taskId, groupId?, patch, trajectory?}")
    .requiredOption(
      "--out <file>",
      "verdicts JSONL, one per rollout in input order; written whole or not at all",
    )
    .option(
      "--groups-out <file>",
      "also write groups JSONL (passed/reward filled in) for `gagar grade` / `gagar advantages`",
    )
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend").choices([...BACKEND_NAMES]).default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed (runs candidate code with NO isolation)")
    .option("--jobs <n>", "parallel sandboxes (at most 4 per CPU)", sandboxJobs(), 1)
    .addOption(
      new Option(
        "--protected <policy>",
        "patches touching tests or runner configs: strip those files, or reject the patch",
      )
        .choices(["strip", "reject"])
        .default("strip"),
    )
    .option("-q, --quiet", "no progress output")
    .action(async (flags: VerifyFlags) => {
      checkOutputFiles([
        ["--out", flags.out],
        ["--groups-out", flags.groupsOut],
      ]);
      const tasks = loadTaskPacks(flags.tasks);
      const rollouts = await readRollouts(flags.rollouts, tasks);
      const warn = (message: string) => process.stderr.write(`${message}\n`);
      const used = new Set(rollouts.map((r) => r.taskId));
      for (const pack of tasks.values()) {
        if (pack.invalid && used.has(pack.spec.id))
          warn(
            `refusing to score task ${pack.spec.id}: gagar tasks check found it invalid (${pack.invalid[0]}${pack.invalid.length > 1 ? `; and ${pack.invalid.length - 1} more` : ""}); its rollouts get infra-error`,
          );
      }
      const sandbox = await selectBackend(flags.sandbox, { allowUnsandboxed: flags.allowUnsandboxed, warn });
      const progress = flags.quiet ? undefined : progressReporter();
      const restoreSignals = exitOnSignals();
      let verdicts: Verdict[];
      const verifier = new Verifier({ sandbox, protectedPolicy: flags.protected, warn, log: warn });
      try {
        verdicts = await verifyRollouts(rollouts, {
          tasks,
          verifier,
          jobs: flags.jobs,
          onProgress: progress?.update,
        });
      } finally {
        progress?.stop();
        await verifier.close();
        restoreSignals();
      }
      const { startedAhead, startedOnDemand } = verifier.stats;
      await writeAtomically(flags.out, (out) => {
        for (const v of verdicts) out.write(toJsonlLine(v));
      });
      if (flags.groupsOut) {
        const { groups, skipped } = buildGroups(rollouts, verdicts, tasks);
        await writeAtomically(flags.groupsOut, (out) => {
          for (const g of groups) out.write(toJsonlLine(g));
        });
        if (skipped.length)
          warn(`warning: ${skipped.length} rollouts with infra errors left out of the groups`);
      }
      const unique = new Set(rollouts.map((r) => `${r.taskId}\u0000${r.patch}`)).size;
      process.stderr.write(
        `${renderTable(["reason", "rollouts", "share"], summaryRows(verdicts), "  ")}\n` +
          `${verdicts.length} rollouts (${unique} distinct patches) verified with the ${sandbox.name} sandbox · verdicts in ${flags.out}` +
          `${flags.groupsOut ? ` · groups in ${flags.groupsOut}` : ""}\n` +
          `sandboxes: ${startedOnDemand} started on demand, ${startedAhead} started ahead while the previous candidate of their task tested\n`,
      );
      const infra = verdicts.filter((v) => v.reason === "infra-error").length;
      if (infra) {
        throw new SandboxError(
          `${infra} rollouts ended in infra-error (a verifier or host fault, not a reward); see their detail`,
          true,
        );
      }
    });
}

/**
 * Ctrl-C or a TERM ends the command through process.exit, so that the verifier's exit hook unmounts the
 * per-candidate workspaces (a default signal death would leave them mounted until the next session
 * sweeps them). Returns the function that removes the handlers again.
 */
export function exitOnSignals(): () => void {
  const onInt = () => process.exit(130);
  const onTerm = () => process.exit(143);
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}

async function readRollouts(file: string, tasks: ReadonlyMap<string, TaskPack>) {
  const records = await readJsonlAll(file, Rollout);
  const seen = new Map<string, number>();
  for (const { value, line } of records) {
    const first = seen.get(value.id);
    if (first !== undefined)
      throw new InputError(
        { file, line, field: "id" },
        `rollout id "${value.id}" already used on line ${first}`,
      );
    seen.set(value.id, line);
    if (!tasks.has(value.taskId))
      throw new InputError({ file, line, field: "taskId" }, `no task pack "${value.taskId}"`);
  }
  return records.map((r) => r.value);
}

/** A progress bar on a terminal, one plain line per finished patch otherwise (logs, CI). */
function progressReporter(): { update: (p: VerifyProgress) => void; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: "verify [{bar}] {value}/{total} patches · last: {reason}",
        stream: process.stderr,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (p) => {
        if (!started) {
          bar.start(p.total, 0, { reason: "-" });
          started = true;
        }
        bar.update(p.done, { reason: `${p.verdict.rolloutId} ${p.verdict.reason}` });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  return {
    update: (p) =>
      process.stderr.write(`verified ${p.done}/${p.total}: ${p.verdict.rolloutId} ${p.verdict.reason}\n`),
    stop: () => {},
  };
}
