import { describe, expect, it } from "vitest";
import { outcomes, runLengthExperiment } from "./length-experiment.ts";
import { formatMetric, renderLengthReport, resultSentences } from "./length-report.ts";
import { world } from "./testing/worlds.ts";

const tasks = [
  world("a", [
    { passed: true, tokens: 1000, quality: 0 },
    { passed: true, tokens: 3000, quality: 1 },
    { passed: false, tokens: 800 },
  ]),
  world("b", [
    { passed: true, tokens: 2000, quality: 1 },
    { passed: true, tokens: 1500, quality: 0 },
    { passed: false, tokens: 1200 },
  ]),
];
const experiment = runLengthExperiment(
  tasks,
  {
    steps: 40,
    groupSize: 6,
    learningRate: 0.5,
    advantage: { estimator: "grpo", scheme: "linear", lambda: 0.5, preserve: "sequence", veto: "none" },
  },
  3,
);

describe("the length experiment's report", () => {
  it("states each result from the numbers, in whichever direction they point", () => {
    const rows = outcomes(experiment);
    const sentences = resultSentences(rows);
    expect(sentences).toHaveLength(3);
    const tokens = rows.find((r) => r.metric === "tokens")!;
    const direction = tokens.gagar.mean < tokens.grpo.mean ? "fewer" : "more";
    expect(sentences[0]).toContain(`GRPO ${formatMetric("tokens", tokens.grpo.mean)}`);
    expect(sentences[0]).toContain(`% ${direction} than GRPO`);
    const flipped = resultSentences([{ ...tokens, grpo: tokens.gagar, gagar: tokens.grpo }])[0]!;
    expect(flipped).toContain(`% ${direction === "fewer" ? "more" : "fewer"} than GRPO`);
  });

  it("renders a self-contained page with the curves, the table of results and every arm", async () => {
    const html = await renderLengthReport(experiment, {
      tasksDir: "tasks",
      rolloutsDir: "rollouts",
      verdicts: { fromStore: 4, verified: 2, storeFile: "s.sqlite" },
      grader: { name: "static", version: "1.0.0", gradings: 2 },
    });
    expect(html.match(/<figure class="chart"/g)).toHaveLength(3);
    expect(html).toContain("It is a simulation.");
    for (const r of outcomes(experiment)) {
      expect(html).toContain(
        `data-method="GAGAR" data-metric="${r.metric}">${formatMetric(r.metric, r.gagar.mean)} `,
      );
    }
    for (const t of tasks) for (const a of t.arms) expect(html).toContain(`<code>${a.id}</code>`);
    expect(html).toContain("4 from s.sqlite, 2 verified in the sandbox for this run");
  });
});
