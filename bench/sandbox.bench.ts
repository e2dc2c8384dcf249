import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBwrapBackend } from "../src/sandbox/bwrap.ts";
import { sandboxBaseEnv } from "../src/sandbox/env.ts";
import type { RunSpec, SandboxBackend } from "../src/sandbox/types.ts";
import { createUnshareBackend } from "../src/sandbox/unshare.ts";
import { median, report } from "./stats.ts";

const FAST_REPS = 15;
const SLOW_REPS = 5;
const PYTHON = "/usr/bin/python3";
/** About one second of pure-Python CPU work on this machine, identical on both sides. */
const LOOP = "s = 0\nfor i in range(20_000_000):\n    s += i";

/** A bare spawn of the same argv with the sandbox's base environment, as the baseline. */
function bare(argv: string[], env: Record<string, string>, cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore", env, cwd });
    child.once("error", fail);
    child.once("exit", (code) => (code === 0 ? done() : fail(new Error(`${argv.join(" ")} exited ${code}`))));
  });
}

async function sandboxed(backend: SandboxBackend, spec: RunSpec): Promise<number> {
  const result = await backend.run(spec);
  if (result.exitCode !== 0)
    throw new Error(`${spec.argv.join(" ")} exited ${result.exitCode}: ${result.stderr}`);
  return result.durationMs;
}

interface Pair {
  bare: number;
  sandboxed: number;
  /** Median of the wrapper chain's own duration (spawn to exit) inside the sandboxed time. */
  chain: number;
}

/**
 * Alternates the bare and the sandboxed run, rep by rep, after one warm-up of each: on a shared machine
 * the load drifts, and interleaving exposes both sides to the same drift. Medians of each side.
 */
async function timePair(
  reps: number,
  bareRun: () => Promise<void>,
  sandboxedRun: () => Promise<number>,
): Promise<Pair> {
  await bareRun();
  await sandboxedRun();
  const bares: number[] = [];
  const totals: number[] = [];
  const chains: number[] = [];
  for (let i = 0; i < reps; i++) {
    let t0 = performance.now();
    await bareRun();
    bares.push(performance.now() - t0);
    t0 = performance.now();
    chains.push(await sandboxedRun());
    totals.push(performance.now() - t0);
  }
  return { bare: median(bares), sandboxed: median(totals), chain: median(chains) };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/**
 * `npm run bench sandbox`: what a sandbox costs per run, measured side by side with a bare spawn of the
 * same command: an empty program (pure start cost), a ~1 s Python loop (the ratio a real test run
 * sees), and pytest's start with and without the base environment's empty PYTHONPYCACHEPREFIX (which
 * makes Python recompile its stdlib and pytest on every run).
 */
export async function run(): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), "gagar-bench-sandbox-"));
  const env = { ...sandboxBaseEnv, PWD: workspace };
  try {
    const backends: SandboxBackend[] = [createBwrapBackend()];
    const unshare = createUnshareBackend();
    if ((await unshare.check()).available) backends.push(unshare);
    const spec = (argv: string[], extraEnv: Record<string, string> = {}): RunSpec => ({
      argv,
      workspace,
      env: extraEnv,
      timeoutMs: 60_000,
    });

    for (const backend of backends) {
      const t = await timePair(
        FAST_REPS,
        () => bare(["/usr/bin/true"], env, workspace),
        () => sandboxed(backend, spec(["/usr/bin/true"])),
      );
      report(`/usr/bin/true: bare spawn vs ${backend.name} (medians)`, `${ms(t.bare)} vs ${ms(t.sandboxed)}`);
      report(
        `  ${backend.name} start cost over bare`,
        `${ms(t.sandboxed - t.bare)} per run (${ratio(t.sandboxed, t.bare)})`,
      );
      report(`  of which uid lease, staging, cleanup`, ms(t.sandboxed - t.chain));
    }
    for (const backend of backends) {
      const t = await timePair(
        SLOW_REPS,
        () => bare([PYTHON, "-c", LOOP], env, workspace),
        () => sandboxed(backend, spec([PYTHON, "-c", LOOP])),
      );
      report(
        `python 1-s loop: bare vs ${backend.name} (medians)`,
        `${ms(t.bare)} vs ${ms(t.sandboxed)} (${ratio(t.sandboxed, t.bare)})`,
      );
    }
    const pytest = [PYTHON, "-m", "pytest", "--version"];
    const bwrap = backends[0]!;
    const bareNoPrefix = () => bare(pytest, { ...env, PYTHONPYCACHEPREFIX: "" }, workspace);
    const basePrefix = await timePair(SLOW_REPS, bareNoPrefix, () => sandboxed(bwrap, spec(pytest)));
    report(
      "pytest --version: bare vs bwrap, base env",
      `${ms(basePrefix.bare)} vs ${ms(basePrefix.sandboxed)} (${ratio(basePrefix.sandboxed, basePrefix.bare)})`,
    );
    const noPrefix = await timePair(SLOW_REPS, bareNoPrefix, () =>
      sandboxed(bwrap, spec(pytest, { PYTHONPYCACHEPREFIX: "" })),
    );
    report(
      "pytest --version: bare vs bwrap, PYTHONPYCACHEPREFIX=''",
      `${ms(noPrefix.bare)} vs ${ms(noPrefix.sandboxed)} (${ratio(noPrefix.sandboxed, noPrefix.bare)})`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
