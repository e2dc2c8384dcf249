import type { TaskArms } from "./arms.ts";
import { type LengthSettings, METHODS, type SimulationRun, simulateLength } from "./length-simulation.ts";
import { type Band, finalBands, type Metric } from "./seed-bands.ts";

export interface LengthExperiment {
  settings: LengthSettings;
  seeds: number[];
  tasks: TaskArms[];
  /** Every (method, seed) run, GRPO first. */
  runs: SimulationRun[];
}

/** Runs GRPO and GAGAR with the same seeds 0..seeds−1. Pure. */
export function runLengthExperiment(
  tasks: TaskArms[],
  settings: LengthSettings,
  seeds: number,
): LengthExperiment {
  const seedList = Array.from({ length: seeds }, (_, i) => i);
  const runs = METHODS.flatMap((method) =>
    seedList.map((seed) => simulateLength(tasks, method, seed, settings)),
  );
  return { settings, seeds: seedList, tasks, runs };
}

export interface MetricOutcome {
  metric: Metric;
  /** The metric before any update (the uniform policy; the same for both methods). */
  start: number;
  grpo: Band;
  gagar: Band;
}

/** The first and last step of each metric, per method: what the report and the terminal summary state. */
export function outcomes(experiment: LengthExperiment): MetricOutcome[] {
  const metrics: Metric[] = ["tokens", "passRate", "topTierShare"];
  return metrics.map((metric) => {
    const last = finalBands(experiment.runs, metric);
    return {
      metric,
      start: experiment.runs[0]!.points[0]![metric],
      grpo: last.find((b) => b.method === "GRPO")!,
      gagar: last.find((b) => b.method === "GAGAR")!,
    };
  });
}
