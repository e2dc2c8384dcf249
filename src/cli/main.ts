import { Command, CommanderError } from "commander";
import { GagarError, isUserError, TaskFaultError } from "../errors.ts";
import { GAGAR_VERSION } from "../version.ts";
import { registerAdvantages } from "./commands/advantages.ts";
import { registerDoctor } from "./commands/doctor.ts";
import { registerExperiment } from "./commands/experiment.ts";
import { registerGrade } from "./commands/grade.ts";
import { registerGrader } from "./commands/grader.ts";
import { registerReport } from "./commands/report.ts";
import { registerRun } from "./commands/run.ts";
import { registerServe } from "./commands/serve.ts";
import { registerTasks } from "./commands/tasks.ts";
import { registerVerify } from "./commands/verify.ts";
import { registerWorker } from "./commands/worker.ts";

/** Builds the `gagar` program; each command lives in its own module under commands/. */
export function buildProgram(): Command {
  const program = new Command("gagar")
    .description("Groupwise Agentic Grading and Advantage Redistribution for code-agent RL")
    .version(GAGAR_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerAdvantages(program);
  registerVerify(program);
  registerTasks(program);
  registerGrade(program);
  registerGrader(program);
  registerRun(program);
  registerServe(program);
  registerWorker(program);
  registerReport(program);
  registerExperiment(program);
  registerDoctor(program);
  return program;
}

/**
 * Runs the CLI and returns the exit code: 0 ok, 2 bad input or usage, 3 some tasks cannot be scored
 * (`tasks import`, `tasks check --run`: every task was tried, the faulty ones are listed above), 1
 * anything else.
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" ? 0 : 2;
    }
    if (isUserError(error)) {
      process.stderr.write(`gagar: ${error.message}\n`);
      return 2;
    }
    if (error instanceof TaskFaultError) {
      process.stderr.write(`gagar: ${error.message}\n`);
      return 3;
    }
    if (error instanceof GagarError) {
      process.stderr.write(`gagar: ${error.name}: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`gagar: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}
