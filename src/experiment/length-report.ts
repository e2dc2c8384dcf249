import { bandChart, type Chart, METHOD_COLORS } from "../report/charts.ts";
import { chartFigure, escapeHtml, percent, renderPage, section } from "../report/html.ts";
import { PAGE_SCRIPT } from "../report/page-script.ts";
import { renderSvg } from "../report/render-chart.ts";
import { passingMask, topTierArms } from "./arms.ts";
import { type LengthExperiment, type MetricOutcome, outcomes } from "./length-experiment.ts";
import type { Method } from "./length-simulation.ts";
import { type Metric, seedBands } from "./seed-bands.ts";

/** Where the experiment's inputs came from, for the report's record of the run. */
export interface LengthProvenance {
  tasksDir: string;
  rolloutsDir: string;
  verdicts: { fromStore: number; verified: number; storeFile?: string };
  grader: { name: string; version: string; gradings: number };
}

const LABELS: Record<Metric, { title: string; axis: string; format: string; caption: string }> = {
  tokens: {
    title: "Mean trajectory tokens",
    axis: "tokens",
    format: ",.0f",
    caption: "Expected tokens of a rollout under the policy, averaged over tasks.",
  },
  passRate: {
    title: "Pass rate",
    axis: "pass rate",
    format: ".0%",
    caption: "Probability that a rollout passes the hidden tests, averaged over tasks.",
  },
  topTierShare: {
    title: "Share of top-tier passes",
    axis: "share of passes",
    format: ".0%",
    caption:
      "Of the probability on passing rollouts, the part on those the static grader puts in its best tier when ranking all passes of the task.",
  },
};

/** Formats a metric's value the way its chart axis does. */
export function formatMetric(metric: Metric, x: number): string {
  return metric === "tokens" ? x.toFixed(0) : percent(x);
}

/**
 * The experiment as a self-contained page: the result stated from the numbers, the curves with
 * seed bands, every arm with its verdict, tier, tokens and final probability, and the limits.
 */
export async function renderLengthReport(
  experiment: LengthExperiment,
  provenance: LengthProvenance,
): Promise<string> {
  const figures: string[] = [];
  for (const metric of ["tokens", "passRate", "topTierShare"] as Metric[]) {
    const chart = curveChart(experiment, metric);
    figures.push(chartFigure(chart, await renderSvg(chart.spec, chart.name)));
  }
  const s = experiment.settings;
  const body = [
    section("result", "Result", resultSection(experiment)),
    section("curves", "Curves", `<div class="charts">${figures.join("")}</div>`),
    section("arms", "The recorded rollouts the policy chooses between", armsSection(experiment)),
    section("limits", "What this is, and what it is not", LIMITS),
    section("setup", "Set-up", setupSection(experiment, provenance)),
  ].join("\n");
  return renderPage({
    title: "gagar experiment · trajectory length under GRPO and GAGAR (simulation)",
    subtitle:
      `${experiment.tasks.length} tasks · ${s.steps} steps · ${experiment.seeds.length} seeds · n = ${s.groupSize} · ` +
      `η = ${s.learningRate} · λ = ${s.advantage.lambda} (${escapeHtml(s.advantage.scheme)}) · estimator ${escapeHtml(s.advantage.estimator)}`,
    body,
    script: PAGE_SCRIPT,
  });
}

function curveChart(experiment: LengthExperiment, metric: Metric): Chart {
  const label = LABELS[metric];
  return bandChart(
    {
      name: `experiment-${metric}`,
      title: label.title,
      caption: `${label.caption} Line: mean over seeds; band: min–max.`,
    },
    seedBands(experiment.runs, metric).map((b) => ({
      x: b.step,
      series: b.method,
      mean: b.mean,
      lo: b.lo,
      hi: b.hi,
    })),
    {
      xTitle: "step",
      yTitle: label.axis,
      yFormat: label.format,
      colors: METHOD_COLORS,
      ...(metric === "tokens" ? {} : { yDomain: [0, 1] as [number, number] }),
    },
  );
}

/** One sentence per metric, stated from the numbers whatever they show. */
export function resultSentences(rows: readonly MetricOutcome[]): string[] {
  return rows.map((r) => {
    const f = (x: number) => formatMetric(r.metric, x);
    const diff = r.gagar.mean - r.grpo.mean;
    const relative =
      r.metric === "tokens"
        ? `${Math.abs((100 * diff) / r.grpo.mean).toFixed(1)}% ${diff < 0 ? "fewer" : "more"} than GRPO`
        : `${Math.abs(100 * diff).toFixed(1)} points ${diff < 0 ? "below" : "above"} GRPO`;
    return (
      `${LABELS[r.metric].title}: ${f(r.start)} at the start; after the last step GRPO ${f(r.grpo.mean)} ` +
      `(seeds ${f(r.grpo.lo)}–${f(r.grpo.hi)}), GAGAR ${f(r.gagar.mean)} (seeds ${f(r.gagar.lo)}–${f(r.gagar.hi)}): ${relative}.`
    );
  });
}

function resultSection(experiment: LengthExperiment): string {
  const rows = outcomes(experiment);
  const cell = (metric: Metric, b: MetricOutcome["grpo"], method: Method) =>
    `<td class="num" data-method="${method}" data-metric="${metric}">${formatMetric(metric, b.mean)} <span class="muted">± ${formatMetric(metric, b.sd)}</span></td>`;
  const table =
    `<table class="result"><tr><th>after ${experiment.settings.steps} steps</th><th class="num">start</th>` +
    `<th class="num">GRPO (mean ± sd over seeds)</th><th class="num">GAGAR</th></tr>` +
    rows
      .map(
        (r) =>
          `<tr><td>${escapeHtml(LABELS[r.metric].title)}</td><td class="num">${formatMetric(r.metric, r.start)}</td>` +
          `${cell(r.metric, r.grpo, "GRPO")}${cell(r.metric, r.gagar, "GAGAR")}</tr>`,
      )
      .join("") +
    `</table>`;
  const sentences = resultSentences(rows)
    .map((s) => `<li>${escapeHtml(s)}</li>`)
    .join("");
  return `<div class="note"><ul class="findings">${sentences}</ul></div>${table}`;
}

function armsSection(experiment: LengthExperiment): string {
  const meanPolicy = (method: Method) => {
    const runs = experiment.runs.filter((r) => r.method === method);
    return experiment.tasks.map((task, t) =>
      task.arms.map((_, a) => runs.reduce((sum, r) => sum + r.finalPolicy[t]![a]!, 0) / runs.length),
    );
  };
  const grpo = meanPolicy("GRPO");
  const gagar = meanPolicy("GAGAR");
  const tables = experiment.tasks.map((task, t) => {
    const full = task.tiersBySubset.get(passingMask(task.arms)) ?? [];
    const top = new Set(topTierArms(task));
    const start = 1 / task.arms.length;
    const rows = task.arms
      .map((arm, a) => {
        const tier = arm.passed ? (full[a] ?? 0) : undefined;
        return (
          `<tr><td><code>${escapeHtml(arm.id)}</code></td>` +
          `<td><span class="badge ${arm.passed ? "pass" : "fail"}">${escapeHtml(arm.reason)}</span></td>` +
          `<td class="num">${tier === undefined ? "-" : `${tier}${top.has(a) ? " (top)" : ""}`}</td>` +
          `<td class="num">${arm.tokens}</td><td class="num">${percent(start)}</td>` +
          `<td class="num">${percent(grpo[t]![a]!)}</td><td class="num">${percent(gagar[t]![a]!)}</td></tr>`
        );
      })
      .join("");
    return (
      `<div><h3>${escapeHtml(task.taskId)}</h3><table class="arms"><tr><th>recorded rollout</th><th>verdict</th>` +
      `<th class="num">tier among all passes</th><th class="num">tokens</th><th class="num">start</th>` +
      `<th class="num">final GRPO</th><th class="num">final GAGAR</th></tr>${rows}</table></div>`
    );
  });
  return (
    `<p class="muted">Final probabilities are means over seeds. The tier column is the static grader's ranking of all of a task's passing rollouts together; ` +
    `during training each group is ranked on its own, among the passes it drew.</p><div class="tables">${tables.join("")}</div>`
  );
}

const LIMITS = `<div class="note"><ul class="findings">
<li>It is a simulation. The policy is a table of probabilities over a task's recorded rollouts: it cannot write new code,
carry what it learns to another task, or make one trajectory shorter. Length changes only through which recordings it prefers.</li>
<li>The inputs are real: each recording's verdict comes from the sandboxed hidden tests, its token count from its transcript,
and each group's tiers from the static grader ranking the distinct passing recordings the group drew (a recording drawn twice shares its tier).</li>
<li>The advantages are the pipeline's own (GRPO base, GAGAR redistribution with the same options); the update is plain REINFORCE on them,
with no clipping, KL or entropy terms. Both methods use the same seeds; bands are the range over seeds.</li>
<li>What it shows is the mechanism: how credit among passes moves probability between correct solutions of different length and quality.
The magnitudes depend on the recordings, the grader, η and λ, and say nothing on their own about a real model's training.</li>
</ul></div>`;

function setupSection(experiment: LengthExperiment, p: LengthProvenance): string {
  const s = experiment.settings;
  const rows: [string, string][] = [
    ["task pack", p.tasksDir],
    ["recorded rollouts", p.rolloutsDir],
    [
      "verdicts",
      `${p.verdicts.fromStore} from ${p.verdicts.storeFile ?? "no store"}, ${p.verdicts.verified} verified in the sandbox for this run`,
    ],
    [
      "tiers",
      `${p.grader.name} grader ${p.grader.version}, ${p.grader.gradings} sets of distinct passing recordings ranked`,
    ],
    [
      "steps · seeds · group size",
      `${s.steps} · ${experiment.seeds.length} (0–${experiment.seeds.length - 1}) · ${s.groupSize}`,
    ],
    ["learning rate η", String(s.learningRate)],
    ["advantage", JSON.stringify(s.advantage)],
  ];
  return `<table>${rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td><code>${escapeHtml(v)}</code></td></tr>`).join("")}</table>`;
}
