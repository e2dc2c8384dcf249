import type { StepMetrics } from "../metrics/step-metrics.ts";
import {
  type Chart,
  groupedBarChart,
  lineChart,
  METHOD_COLORS,
  type ScatterPoint,
  type SeriesPoint,
  scatterChart,
} from "./charts.ts";
import { type GroupData, isVetoed, type RunData } from "./run-data.ts";

const STEP = "step";

/** The per-step curves and the GRPO-vs-GAGAR charts of a run, from its finished steps' metrics. */
export function runCharts(run: RunData): Chart[] {
  const finished = run.steps.flatMap((s) => (s.metrics ? [{ idx: s.idx, m: s.metrics }] : []));
  const series: Series = (name, value) =>
    finished.map(({ idx, m }) => ({ x: idx, series: name, y: value(m) }));
  const charts: Chart[] = [...stepCharts(series), ...advantageCharts(series)];
  const latest = run.steps.filter((s) => s.groups.some((g) => g.candidates.some((c) => c.advantage))).at(-1);
  if (latest) charts.push(advantageScatter(latest.idx, latest.groups));
  return charts;
}

type Series = (name: string, value: (m: StepMetrics) => number) => SeriesPoint[];

/** The per-step curves: pass rate, groups, rollouts, lengths, patch size, grader. */
function stepCharts(series: Series): Chart[] {
  const spread = (of: (m: StepMetrics) => StepMetrics["tokens"]) => [
    ...series("mean", (m) => of(m).mean),
    ...series("p50", (m) => of(m).p50),
    ...series("p90", (m) => of(m).p90),
  ];
  return [
    lineChart(
      {
        name: "pass-rate",
        title: "Pass rate",
        caption:
          "Share of all rollouts generated in the step (kept and dropped groups) that passed the hidden tests.",
      },
      series("pass rate", (m) => m.passRate),
      { xTitle: STEP, yTitle: "pass rate", yDomain: [0, 1], yFormat: ".0%" },
    ),
    lineChart(
      {
        name: "groups",
        title: "Groups generated and kept",
        caption: "Dynamic sampling generates groups until the batch holds enough informative (mixed) ones.",
      },
      [...series("generated", (m) => m.groupsGenerated), ...series("kept", (m) => m.groupsKept)],
      { xTitle: STEP, yTitle: "groups", yZero: true },
    ),
    lineChart(
      {
        name: "rollouts-per-kept-group",
        title: "Rollouts per kept group",
        caption: "The sampling cost of a training group: rollouts generated in the step over groups kept.",
      },
      series("rollouts per kept group", (m) => m.rolloutsPerKeptGroup),
      { xTitle: STEP, yTitle: "rollouts", yZero: true },
    ),
    lineChart(
      {
        name: "tokens",
        title: "Trajectory tokens",
        caption: "Tokens per trajectory over every rollout of the step: mean, median and 90th percentile.",
      },
      spread((m) => m.tokens),
      { xTitle: STEP, yTitle: "tokens" },
    ),
    lineChart(
      {
        name: "turns",
        title: "Agent turns",
        caption: "Turns per trajectory: mean, median and 90th percentile.",
      },
      spread((m) => m.turns),
      { xTitle: STEP, yTitle: "turns" },
    ),
    lineChart(
      {
        name: "patch-size",
        title: "Passing patch size",
        caption: "Mean lines added plus removed by the patches that passed.",
      },
      series("lines changed", (m) => m.passingPatchLines),
      { xTitle: STEP, yTitle: "lines", yZero: true },
    ),
    lineChart(
      {
        name: "grader",
        title: "Grader fallbacks and vetoes",
        caption:
          "Groups the requested grader could not rank (another grader stepped in) and passes vetoed for a critical finding.",
      },
      [...series("fallbacks", (m) => m.grader.fallbacks), ...series("vetoed", (m) => m.grader.vetoed)],
      { xTitle: STEP, yTitle: "count", yZero: true, yFormat: "d" },
    ),
  ];
}

/** GRPO against GAGAR per step: the spread of passing advantages and their correlation with length. */
function advantageCharts(series: Series): Chart[] {
  return [
    lineChart(
      {
        name: "advantage-spread",
        title: "Advantage spread among passes",
        caption:
          "Within-group standard deviation of the passing candidates' advantages: zero under GRPO with test rewards, the credit GAGAR moves between passes.",
      },
      [
        ...series("GRPO", (m) => m.advantage.passingStdGrpo),
        ...series("GAGAR", (m) => m.advantage.passingStdGagar),
      ],
      { xTitle: STEP, yTitle: "std of advantage", colors: METHOD_COLORS, yZero: true },
    ),
    lineChart(
      {
        name: "token-correlation",
        title: "corr(advantage, tokens) among passes",
        caption:
          "Within-group correlation of a passing candidate's advantage with its trajectory length; below zero, longer passing trajectories got less credit.",
      },
      [
        ...series("GRPO", (m) => m.advantage.tokenCorrelationGrpo),
        ...series("GAGAR", (m) => m.advantage.tokenCorrelationGagar),
      ],
      { xTitle: STEP, yTitle: "correlation", yDomain: [-1, 1], colors: METHOD_COLORS },
    ),
  ];
}

/** Advantage against tokens for every candidate of the step's kept groups, GRPO and GAGAR. */
function advantageScatter(stepIdx: number, groups: readonly GroupData[]): Chart {
  const points: ScatterPoint[] = [];
  for (const g of groups) {
    for (const c of g.candidates) {
      if (!c.advantage || c.tokens === undefined) continue;
      const shape = isVetoed(c) ? "vetoed" : c.verdict?.passed ? "passed" : "failed";
      const label = `${c.id} (${g.taskId})`;
      points.push({ x: c.tokens, y: c.advantage.baseAdvantage, series: "GRPO", shape, label });
      points.push({ x: c.tokens, y: c.advantage.advantage, series: "GAGAR", shape, label });
    }
  }
  return scatterChart(
    {
      name: "advantage-vs-tokens",
      title: `Advantage against tokens, step ${stepIdx}`,
      caption:
        "Every candidate of the step's kept groups. Within a group GRPO gives all passes one value; GAGAR spreads them by the grader's tiers, keeping their sum.",
    },
    points,
    { xTitle: "trajectory tokens", yTitle: "advantage", colors: METHOD_COLORS, shapeTitle: "verdict" },
  );
}

/** GRPO and GAGAR advantage of each candidate of a kept group, in the order the page lists them. */
export function groupAdvantageChart(group: GroupData, order: readonly number[]): Chart | undefined {
  const rows = order.map((i) => group.candidates[i]!).filter((c) => c.advantage);
  if (!rows.length) return undefined;
  return groupedBarChart(
    {
      name: `advantages-${group.id}`,
      title: "GRPO and GAGAR advantage",
      caption: "Failures keep their GRPO advantage; passes share the same total, moved toward better tiers.",
    },
    rows.flatMap((c) => [
      { row: candidateLabel(group, c.id), series: "GRPO", value: c.advantage!.baseAdvantage },
      { row: candidateLabel(group, c.id), series: "GAGAR", value: c.advantage!.advantage },
    ]),
    { xTitle: "advantage", colors: METHOD_COLORS },
  );
}

/**
 * A candidate's id without its task's name in front (`moneyfmt-minor-units-r04` → `r04`), which
 * every candidate of the group repeats; the full id when stripping it would leave nothing.
 */
export function candidateLabel(group: GroupData, id: string): string {
  for (const sep of ["-", "/", "_", ":"]) {
    const prefix = group.taskId + sep;
    if (id.startsWith(prefix) && id.length > prefix.length) return id.slice(prefix.length);
  }
  return id;
}
