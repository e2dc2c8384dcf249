import { join } from "node:path";
import type { Command } from "commander";
import { loadConfig, resolveConfig } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { agentOptions } from "../../grade/agent/settings.ts";
import { graderCapabilities } from "../../grade/registry.ts";
import { checkOutputDir } from "../../io/output-paths.ts";
import { RUN_CONFIG_CHECKS } from "../../pipeline/config-checks.ts";
import { renderGroup, renderMetrics } from "../../pipeline/report.ts";
import { type FinishedStep, runTraining } from "../../pipeline/run.ts";
import { buildServices } from "../../pipeline/services.ts";
import { EXAMPLE_PACK } from "../example-pack.ts";
import { integerWithin } from "../options.ts";
import { createPolicySourceFromConfig } from "../policy-source.ts";

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run RL steps as configured: sample, roll out, verify, filter, grade, redistribute, export")
    .requiredOption("--config <file>", "gagar.config.json (unknown keys are errors; see docs/config.md)")
    .option("--steps <k>", "steps the run should have", integerWithin(1, "steps"), 1)
    .option("--resume [run-id]", "continue a run (default: the latest) instead of starting a new one")
    .option("-q, --quiet", "print only the step metrics, not every group")
    .option(
      "--no-probes",
      "no behavioural probes (docs/probes.md), whatever the config's probes.enabled says",
    )
    .action(
      async (flags: {
        config: string;
        steps: number;
        resume?: string | true;
        quiet?: boolean;
        probes: boolean;
      }) => {
        const config = loadConfig(flags.config, RUN_CONFIG_CHECKS);
        checkOutputDir(config.out, `${flags.config} (field out):`);
        await runAndReport(config, {
          steps: flags.steps,
          resume: flags.resume === true ? "latest" : flags.resume,
          quiet: flags.quiet,
          probes: flags.probes,
        });
      },
    );

  program
    .command("demo")
    .description(
      "one full RL step on the bundled example pack: replay rollouts, sandboxed tests, static grader",
    )
    .option("--out <dir>", "where the store, batch and transcripts go", "gagar-demo")
    .option(
      "--steps <k>",
      "RL steps of the run (later steps reuse the verdicts of patches already seen)",
      integerWithin(1, "steps"),
      1,
    )
    .option("--no-probes", "no behavioural probes (docs/probes.md)")
    .action(async (flags: { out: string; steps: number; probes: boolean }) => {
      checkOutputDir(flags.out, "--out");
      const config = resolveConfig(
        {
          tasks: EXAMPLE_PACK.tasks,
          rollouts: { source: "replay", replayDir: EXAMPLE_PACK.rollouts },
          out: flags.out,
        },
        "gagar demo (embedded defaults)",
        process.cwd(),
        RUN_CONFIG_CHECKS,
      );
      const started = performance.now();
      const outcome = await runAndReport(config, { steps: flags.steps, probes: flags.probes });
      const step = outcome.steps.at(-1);
      process.stderr.write(
        `\ndemo finished in ${((performance.now() - started) / 1000).toFixed(1)} s\n` +
          `  store        ${outcome.storeFile}\n` +
          (step
            ? `  batch        ${step.batchJsonl}\n               ${step.batchParquet}\n  transcripts  ${step.transcripts}\n`
            : "") +
          `  config       ${outcome.runDir}/config.json\n` +
          `\nnext: draw the run as a page you can open from disk —\n` +
          `  npx gagar report ${shellQuote(flags.out)} --out ${shellQuote(join(flags.out, "report.html"))}\n`,
      );
    });
}

async function runAndReport(
  config: Config,
  options: { steps: number; resume?: string; quiet?: boolean; probes?: boolean },
) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Built before the run's folder and store exist: a run that cannot start leaves nothing behind.
  const built = await buildServices(config, {
    warn: log,
    probes: options.probes,
    policySource: (sandbox) => createPolicySourceFromConfig(config, sandbox, log),
    // Model graders may take their server, model and key from the environment, read here at the edge.
    graderOptions: graderCapabilities(config.grader)?.needsModel
      ? agentOptions({}, process.env, config.graderOptions)
      : config.graderOptions,
  });
  try {
    log(
      `sandbox: ${built.sandbox.name} · grader: ${built.services.grader.name} · source: ${built.services.source.name}` +
        ` · probes: ${built.services.probes ? `on (${config.probes.budgetSec} s per group)` : "off"}`,
    );
    return await runTraining(config, built.services, {
      steps: options.steps,
      resume: options.resume,
      log,
      onStep: (s) => printStep(s, options.quiet ?? false),
    });
  } finally {
    await built.close();
  }
}

function printStep(step: FinishedStep, quiet: boolean): void {
  const out: string[] = [];
  if (!quiet) for (const g of step.groups) out.push(renderGroup(g), "");
  out.push(`step ${step.stepIdx} metrics`, renderMetrics(step.metrics));
  process.stdout.write(`${out.join("\n")}\n`);
}

/** Quotes a path for the command line the demo suggests, when it needs quoting. */
function shellQuote(path: string): string {
  return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
