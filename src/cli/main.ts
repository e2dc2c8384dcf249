import { Command, CommanderError } from "commander";
import { GagarError, InvariantError, isUserError, TaskFaultError } from "../errors.ts";
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

/** The environment variable that, like `--debug`, keeps the stack trace of an internal error. */
export const DEBUG_ENV = "GAGAR_DEBUG";

/** Builds the `gagar` program; each command lives in its own module under commands/. */
export function buildProgram(): Command {
  const program = new Command("gagar")
    .description("Groupwise Agentic Grading and Advantage Redistribution for code-agent RL")
    .version(GAGAR_VERSION)
    .option("--debug", `print the stack trace of an internal error (or set ${DEBUG_ENV}=1)`)
    // A usage error is one line, like every other error of gagar's.
    .configureOutput({
      outputError: (text, write) =>
        write(`gagar: ${text.replace(/^error: /, "").trimEnd()} (--help shows the usage)\n`),
    })
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
 * Runs the CLI and returns the exit code: 0 ok, 2 bad input or usage (one message naming the flag,
 * file, line or field), 3 some tasks cannot be scored (`tasks import`, `tasks check --run`: every
 * task was tried, the faulty ones are listed above), 1 anything else. A fault of the host (a
 * sandbox, Redis, a model server) is one line saying what failed; a bug in gagar says so and how to
 * report it, with its stack trace only under --debug or GAGAR_DEBUG=1.
 */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  program: Command = buildProgram(),
): Promise<number> {
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
    if (error instanceof GagarError && !(error instanceof InvariantError)) {
      process.stderr.write(`gagar: ${error.name}: ${error.message}\n`);
      return 1;
    }
    const debug = program.opts().debug === true || isSet(env[DEBUG_ENV]);
    process.stderr.write(`${describeInternalError(error, debug)}\n`);
    return 1;
  }
}

/** What the user sees of a bug in gagar: what happened, and how to get the trace and report it. */
export function describeInternalError(error: unknown, withStack: boolean): string {
  const summary =
    error instanceof Error
      ? `${error.name}: ${error.message}`
      : `a non-error value was thrown: ${String(error)}`;
  const lines = [`gagar: internal error (a bug in gagar, not in your input): ${summary}`];
  if (withStack && error instanceof Error && error.stack)
    lines.push(error.stack.startsWith(summary) ? error.stack.slice(summary.length + 1) : error.stack);
  else lines.push(`  run the command again with --debug (or ${DEBUG_ENV}=1) to see its stack trace,`);
  lines.push(
    "  and report it to gagar's maintainers with the command line and that output (CONTRIBUTING.md, Reporting a bug)",
  );
  return lines.join("\n");
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}
