import type { Method, PolicyPoint, SimulationRun } from "./length-simulation.ts";

export type Metric = Exclude<keyof PolicyPoint, "step">;

export interface Band {
  step: number;
  method: Method;
  /** Mean over seeds. */
  mean: number;
  /** Smallest and largest value over seeds. */
  lo: number;
  hi: number;
  /** Standard deviation over seeds (n − 1; 0 for one seed). */
  sd: number;
}

/**
 * Per method and step, a metric's mean over seeds with its range (the band drawn around the curve)
 * and standard deviation. Runs of one method must cover the same steps.
 */
export function seedBands(runs: readonly SimulationRun[], metric: Metric): Band[] {
  const bands: Band[] = [];
  for (const method of [...new Set(runs.map((r) => r.method))]) {
    const mine = runs.filter((r) => r.method === method);
    const steps = mine[0]!.points.length;
    for (let i = 0; i < steps; i++) {
      const values = mine.map((r) => r.points[i]![metric]);
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const sd =
        values.length > 1
          ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1))
          : 0;
      bands.push({
        step: mine[0]!.points[i]!.step,
        method,
        mean,
        lo: Math.min(...values),
        hi: Math.max(...values),
        sd,
      });
    }
  }
  return bands;
}

/** The last step's band of each method. */
export function finalBands(runs: readonly SimulationRun[], metric: Metric): Band[] {
  const bands = seedBands(runs, metric);
  const last = Math.max(...bands.map((b) => b.step));
  return bands.filter((b) => b.step === last);
}
