import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Command, Option } from "commander";
import { DEFAULTS } from "../../config/defaults.ts";
import { LENGTH_DEFAULTS } from "../../experiment/defaults.ts";
import { outcomes, runLengthExperiment } from "../../experiment/length-experiment.ts";
import { loadArms } from "../../experiment/load-arms.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { checkOutputFile } from "../../io/output-paths.ts";
import { renderTable } from "../../io/table.ts";
import { BACKEND_NAMES, type BackendName } from "../../sandbox/select.ts";
import { EXAMPLE_PACK } from "../example-pack.ts";
import { integerWithin, numberIn, sandboxJobs } from "../options.ts";

interface LengthFlags {
  tasks: string;
  rollouts: string;
  store?: string;
  steps: number;
  seeds: number;
  groupSize: number;
  learningRate: number;
  lambda: number;
  sandbox: BackendName;
  jobs: number;
  out: string;
}

export function registerExperiment(program: Command): void {
  const experiment = program
    .command("experiment")
    .description("controlled experiments on recorded rollouts (simulations, stated as such)");
  experiment
    .command("length")
    .description(
      "GRPO vs GAGAR on a tabular softmax policy over recorded rollouts (real verdicts, tiers and token counts): length, pass rate, top-tier share",
    )
    .option("--tasks <dir>", "task pack", EXAMPLE_PACK.tasks)
    .option("--rollouts <dir>", "recorded rollouts, <task-id>.jsonl", EXAMPLE_PACK.rollouts)
    .option(
      "--store <file>",
      "take verdicts from this run store (e.g. gagar-demo/gagar.sqlite); verify only the rest",
    )
    .option("--steps <k>", "policy updates", integerWithin(1, "steps"), LENGTH_DEFAULTS.steps)
    .option(
      "--seeds <k>",
      "seeds per method (the same for GRPO and GAGAR)",
      integerWithin(1, "seeds"),
      LENGTH_DEFAULTS.seeds,
    )
    .option(
      "--group-size <n>",
      "rollouts per group",
      integerWithin(2, "groupSize"),
      LENGTH_DEFAULTS.groupSize,
    )
    .option(
      "--learning-rate <eta>",
      "REINFORCE step size on the logits",
      numberIn(0, 100),
      LENGTH_DEFAULTS.learningRate,
    )
    .option(
      "--lambda <x>",
      "GAGAR redistribution strength λ in [0, 1)",
      numberIn(0, 1),
      LENGTH_DEFAULTS.lambda,
    )
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend for verification")
        .choices([...BACKEND_NAMES])
        .default("auto"),
    )
    .option("--jobs <n>", "parallel sandboxes (at most 4 per CPU)", sandboxJobs(), DEFAULTS.verifyJobs)
    .option("--out <file>", "the HTML report to write", "gagar-experiment-length.html")
    .action(async (flags: LengthFlags) => {
      checkOutputFile(flags.out, "--out");
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const loaded = await loadArms({
        tasksDir: flags.tasks,
        rolloutsDir: flags.rollouts,
        storeFile: flags.store,
        sandbox: flags.sandbox,
        verifyJobs: flags.jobs,
        log,
      });
      log(
        `simulating ${flags.seeds} seeds × 2 methods × ${flags.steps} steps over ${loaded.tasks.length} tasks`,
      );
      const result = runLengthExperiment(
        loaded.tasks,
        {
          steps: flags.steps,
          groupSize: flags.groupSize,
          learningRate: flags.learningRate,
          // The simulation isolates redistribution: its arms carry no findings, so a veto could not act.
          advantage: { ...DEFAULTS.advantage, lambda: flags.lambda, veto: "none" },
        },
        flags.seeds,
      );
      // Vega loads only for the commands that draw, not on every start of the CLI.
      const { formatMetric, renderLengthReport, resultSentences } = await import(
        "../../experiment/length-report.ts"
      );
      const html = await renderLengthReport(result, {
        tasksDir: flags.tasks,
        rolloutsDir: flags.rollouts,
        verdicts: { ...loaded.verdicts, storeFile: flags.store },
        grader: loaded.grader,
      });
      await writeAtomically(flags.out, (o) => o.write(html));
      const rows = outcomes(result);
      const table = renderTable(
        ["metric", "start", "GRPO", "GAGAR"],
        rows.map((r) => [
          r.metric,
          formatMetric(r.metric, r.start),
          `${formatMetric(r.metric, r.grpo.mean)} ± ${formatMetric(r.metric, r.grpo.sd)}`,
          `${formatMetric(r.metric, r.gagar.mean)} ± ${formatMetric(r.metric, r.gagar.sd)}`,
        ]),
      );
      process.stdout.write(
        `simulation, after ${flags.steps} steps (mean ± sd over ${flags.seeds} seeds; tiers by ${loaded.grader.name} ${loaded.grader.version}):\n${table}\n\n` +
          `${resultSentences(rows).join("\n")}\n`,
      );
      log(`report: ${pathToFileURL(resolve(flags.out)).href}`);
    });
}
