import { mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { ConfigError } from "../../errors.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { checkOutputDir, checkOutputFile } from "../../io/output-paths.ts";
import { loadRun, locateRun, type RunLocation } from "../../report/load-run.ts";

interface ReportFlags {
  store?: string;
  run?: string;
  out?: string;
}

export function registerReport(program: Command): void {
  program
    .command("report")
    .description(
      "write a self-contained HTML report of a run: curves, GRPO vs GAGAR, every group and its diffs",
    )
    .argument("[run-dir]", "the folder a run wrote (its --out, e.g. gagar-demo), or <out>/runs/<run-id>")
    .option("--store <file>", "read this store instead of a run folder")
    .option("--run <id>", "which run of the store (default: the latest, or the one the run folder names)")
    .option("--out <file>", "the HTML file to write (default: report.html in the run's folder)")
    .action(async (runDir: string | undefined, flags: ReportFlags) => {
      if (flags.out !== undefined) checkOutputFile(flags.out, "--out");
      const location = where(runDir, flags);
      const run = loadRun(location);
      const out = flags.out ?? join(run.files.runDir, "report.html");
      // The default is in the run's folder, which a service's store does not have until a report is written.
      if (flags.out === undefined) checkOutputDir(dirname(out), "the run's folder (or give --out)");
      // Vega loads only for the commands that draw, not on every start of the CLI.
      const { renderRunReport } = await import("../../report/run-page.ts");
      const html = await renderRunReport(run);
      mkdirSync(dirname(out), { recursive: true });
      await writeAtomically(out, (o) => o.write(html));
      const groups = run.steps.reduce((n, s) => n + s.groups.length, 0);
      const size = (statSync(out).size / 1024).toFixed(0);
      process.stderr.write(
        `report of run ${run.runId}: ${run.steps.length} step(s), ${groups} group(s) → ${out} (${size} KiB)\n` +
          `open it in a browser: ${pathToFileURL(resolve(out)).href}\n`,
      );
    });
}

function where(runDir: string | undefined, flags: ReportFlags): RunLocation {
  if ((runDir === undefined) === (flags.store === undefined))
    throw new ConfigError("give either a run folder or --store <file> (not both)");
  const located = runDir === undefined ? { storeFile: flags.store! } : locateRun(runDir);
  if (flags.run !== undefined && located.runId !== undefined && flags.run !== located.runId)
    throw new ConfigError(`--run ${flags.run} differs from the run the folder names (${located.runId})`);
  return { storeFile: located.storeFile, runId: flags.run ?? located.runId };
}
