import { join } from "node:path";
import type { FileDiff } from "../../diff/parse.ts";
import { GUARD_CAP } from "../guards/guard-setup.ts";
import type { TestPlan } from "../runners/types.ts";
import type { TaskState } from "../workspace/task-state.ts";
import type { RunOverrides } from "./candidate-run.ts";
import type { RunPool } from "./run-pool.ts";
import { safeReadFile } from "./safe-read.ts";

/** What a run of Verifier.runPlan left: each run's second channel, and whether the runner finished. */
export interface PlanRun {
  /** status.json carries this run's token: the runner, not the code under test, wrote the outputs. */
  completed: boolean;
  timedOut: boolean;
  /** Per planned run, what came through its second channel (capped at GUARD_CAP). */
  channels: string[];
  durationMs: number;
}

/**
 * Runs `plan` — a test plan of another stage's, not the task's own (behavioural probes, src/probe/) —
 * on the gate's rendering of a patch in the task's sandbox, environment and limits, with the guards
 * off and, per run, a second channel only the trusted runner reads (`overrides.channelEnv` tells the
 * tests where it is). Runs of the same `planKey` are started ahead like the candidates' runs
 * (run-pool.ts) while `readyNext` says another is coming.
 */
export async function runPlan(
  pool: RunPool,
  task: TaskState,
  gate: { patch: string; files: readonly FileDiff[] },
  plan: { key: string; plan: TestPlan; overrides: RunOverrides },
  readyNext: () => boolean,
): Promise<PlanRun> {
  return pool.run(
    task,
    gate,
    readyNext,
    (run, result, request) => {
      const read = (name: string, cap: number) => {
        const file = safeReadFile(join(run.workspace.outDir, name), cap);
        return file.ok ? file.data.toString("utf8") : null;
      };
      const parsed = parseStatus(read("status.json", 1 << 20));
      return {
        completed: parsed?.token === request.token,
        timedOut: result.timedOut || (parsed?.runs ?? []).some((r) => r.timedOut === true),
        channels: plan.plan.runs.map((_, i) => read(`guard-${i}.log`, GUARD_CAP) ?? ""),
        durationMs: result.durationMs,
      };
    },
    plan,
  );
}

function parseStatus(text: string | null): { token?: unknown; runs?: { timedOut?: boolean }[] } | null {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
