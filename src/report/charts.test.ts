import { describe, expect, it } from "vitest";
import { bandChart, groupedBarChart, lineChart, METHOD_COLORS, scatterChart } from "./charts.ts";
import { renderSvg } from "./render-chart.ts";

const meta = (name: string) => ({ name, title: name, caption: "" });

/** Data marks Vega drew (axes and legends are not graphics-symbols). */
function dataMarks(svg: string): string[] {
  return svg.match(/<path aria-label="[^"]*" role="graphics-symbol"/g) ?? [];
}

describe("report charts render to SVG with Vega-Lite", () => {
  it("draws a line with a point per value, and a legend only for several series", async () => {
    const one = await renderSvg(
      lineChart(meta("one"), [{ x: 0, series: "pass rate", y: 0.5 }], { xTitle: "step", yTitle: "rate" })
        .spec,
      "one",
    );
    expect(dataMarks(one).length).toBeGreaterThanOrEqual(2); // the (one-point) line and its point
    expect(one).not.toContain("role-legend");
    const two = await renderSvg(
      lineChart(
        meta("two"),
        [
          { x: 0, series: "GRPO", y: 0 },
          { x: 1, series: "GRPO", y: 0 },
          { x: 0, series: "GAGAR", y: 0.2 },
          { x: 1, series: "GAGAR", y: 0.15 },
        ],
        { xTitle: "step", yTitle: "std", colors: METHOD_COLORS },
      ).spec,
      "two",
    );
    expect(two).toContain("role-legend");
    expect(two).toContain(METHOD_COLORS.range[0]);
    expect(two).toContain(METHOD_COLORS.range[1]);
    expect(dataMarks(two).filter((m) => m.includes("GAGAR")).length).toBeGreaterThan(0);
  });

  it("describes every mark in its aria-label, which the page turns into a hover title", async () => {
    const svg = await renderSvg(
      groupedBarChart(
        meta("bars"),
        [
          { row: "r01", series: "GRPO", value: 0.7 },
          { row: "r01", series: "GAGAR", value: 0.9 },
          { row: "r02", series: "GRPO", value: -1.2 },
          { row: "r02", series: "GAGAR", value: -1.2 },
        ],
        { xTitle: "advantage", colors: METHOD_COLORS },
      ).spec,
      "bars",
    );
    const bars = dataMarks(svg);
    expect(bars).toHaveLength(4);
    expect(bars.join("\n")).toContain('aria-label="r01 · GAGAR +0.900"');
  });

  it("draws bands and scatters", async () => {
    const band = await renderSvg(
      bandChart(
        meta("band"),
        [0, 1, 2].flatMap((x) => [
          { x, series: "GRPO", mean: x, lo: x - 1, hi: x + 1 },
          { x, series: "GAGAR", mean: -x, lo: -x - 1, hi: -x + 1 },
        ]),
        { xTitle: "step", yTitle: "tokens", colors: METHOD_COLORS },
      ).spec,
      "band",
    );
    expect(band).toContain('aria-roledescription="area mark"');
    expect(band).toContain('aria-roledescription="line mark"');
    expect(band).toContain("role-legend"); // one legend for the lines and their bands
    const scatter = await renderSvg(
      scatterChart(
        meta("scatter"),
        [
          { x: 1500, y: 0.7, series: "GRPO", shape: "passed", label: "r1" },
          { x: 1800, y: -1.2, series: "GAGAR", shape: "failed", label: "r2" },
        ],
        { xTitle: "tokens", yTitle: "advantage", shapeTitle: "verdict", colors: METHOD_COLORS },
      ).spec,
      "scatter",
    );
    expect(dataMarks(scatter).length).toBeGreaterThanOrEqual(2);
  });

  it("names the chart when a spec cannot be rendered", async () => {
    await expect(renderSvg({ mark: "nope" } as never, "broken")).rejects.toThrow(/chart "broken"/);
  });
});
