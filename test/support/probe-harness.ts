/**
 * Runs behavioural probes with the real test runners, outside gagar's sandbox (phase 1 of issue 21:
 * the sandboxed run is the verifier's, later). A workspace is a directory holding a candidate's tree;
 * the probe plan's files are written into it and the runner is started on them with the channel file
 * in GAGAR_PROBE_CHANNEL.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ProbeRun, readProbeChannel } from "../../src/probe/channel.ts";
import { PROBE_CHANNEL_ENV, type ProbePlan } from "../../src/probe/plan.ts";

export const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";
export const DEBIAN_PYTHON = "/usr/bin/python3";

/** Where jest and vitest are installed (network-gated tests set it after `npm install`). */
export interface JsTools {
  nodeModules: string;
}

/** The command that runs `files` in workspace `ws` with runner `runner`. */
export function runnerCommand(
  runner: string,
  files: readonly string[],
  tools?: JsTools,
): { argv: string[]; env: Record<string, string> } {
  switch (runner) {
    case "pytest":
      return {
        argv: [DEBIAN_PYTHON, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", ...files],
        env: {},
      };
    case "node:test":
      return { argv: [process.execPath, "--test", ...files], env: {} };
    case "mocha":
      return { argv: [process.execPath, DEBIAN_MOCHA, ...files], env: { NODE_PATH: "/usr/share/nodejs" } };
    case "jest":
      if (!tools) throw new Error("jest needs the npm tools");
      return {
        argv: [
          process.execPath,
          join(tools.nodeModules, "jest/bin/jest.js"),
          "--ci",
          "--runInBand",
          "--runTestsByPath",
          ...files,
        ],
        env: {},
      };
    case "vitest":
      if (!tools) throw new Error("vitest needs the npm tools");
      return {
        argv: [process.execPath, join(tools.nodeModules, "vitest/vitest.mjs"), "run", ...files],
        env: {},
      };
    default:
      throw new Error(`no command for runner ${runner}`);
  }
}

export interface RunResult {
  status: number | null;
  output: string;
}

export function runIn(
  ws: string,
  argv: readonly string[],
  env: Record<string, string>,
  timeoutMs = 300_000,
): RunResult {
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd: ws,
    env: { PATH: "/usr/bin:/bin", HOME: ws, ...env },
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 1 << 28,
  });
  return { status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Writes the plan's files into `ws`, runs its probe modules, and reads the channel back. */
export function runProbes(
  ws: string,
  plan: ProbePlan,
  tools?: JsTools,
  env: Record<string, string> = {},
): { run: ProbeRun; result: RunResult } {
  for (const file of plan.files) {
    mkdirSync(dirname(join(ws, file.path)), { recursive: true });
    writeFileSync(join(ws, file.path), file.content);
  }
  const channel = join(ws, `.gagar-probe-channel-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(channel, "");
  const command = runnerCommand(plan.runner, plan.testFiles, tools);
  const result = runIn(ws, command.argv, { ...command.env, ...env, [PROBE_CHANNEL_ENV]: channel });
  const run = readProbeChannel(readFileSync(channel, "utf8"));
  rmSync(channel);
  for (const file of plan.files) rmSync(join(ws, file.path), { force: true });
  return { run, result };
}

/** Runs the test modules themselves (the verifier's question: does the candidate pass?). */
export function runTests(
  ws: string,
  runner: string,
  files: readonly string[],
  tools?: JsTools,
  env: Record<string, string> = {},
): RunResult {
  const command = runnerCommand(runner, files, tools);
  return runIn(ws, command.argv, { ...command.env, ...env });
}
