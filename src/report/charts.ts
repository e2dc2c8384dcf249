import type { TopLevelSpec } from "vega-lite";

/**
 * Vega-Lite specs of the few chart shapes reports use, as pure functions of plain rows. Reports
 * render them to SVG (render-chart.ts); tests can inspect the specs without rendering.
 */
export interface Chart {
  /** Stable id, used for the figure's HTML id and in error messages. */
  name: string;
  title: string;
  /** One sentence on how to read the chart. */
  caption: string;
  spec: TopLevelSpec;
}

/** GRPO and GAGAR keep the same colours in every chart of every report. */
export const METHOD_COLORS = { domain: ["GRPO", "GAGAR"], range: ["#e8833a", "#3b6ea8"] };

const WIDTH = 340;
const HEIGHT = 180;

const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

const CONFIG = {
  // Vega repeats the font on every text element of the SVG: a short one keeps reports small.
  font: "sans-serif",
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: "normal" as const, grid: true },
  legend: {
    labelFontSize: 11,
    titleFontSize: 11,
    orient: "bottom" as const,
    direction: "horizontal" as const,
  },
};

/** What every chart over steps shares: schema, size and style. */
const FRAME = { $schema: SCHEMA, width: WIDTH, height: HEIGHT, config: CONFIG };

export interface SeriesPoint {
  x: number;
  series: string;
  y: number;
}

export interface LineChartOptions {
  xTitle: string;
  yTitle: string;
  /** Fixed colours per series (e.g. METHOD_COLORS); otherwise the default palette. */
  colors?: { domain: string[]; range: string[] };
  /** Fixes the y domain (rates in [0, 1]). */
  yDomain?: [number, number];
  /** Start the y axis at zero (counts and sizes), rather than at the data's minimum (lengths). */
  yZero?: boolean;
  /** d3-format of the y axis; default: up to four significant digits. */
  yFormat?: string;
}

const DEFAULT_FORMAT = ",.4~g";

/**
 * A mark's description, computed by Vega from the datum: Vega writes it into the mark's
 * aria-label, and the page shows it as the mark's hover title (a static SVG has no tooltips).
 */
function describe(expression: string) {
  return {
    transform: [{ calculate: expression, as: "description" }],
    description: { field: "description", type: "nominal" as const },
  };
}

/** A JavaScript string literal is a Vega expression string literal. */
const literal = (text: string) => JSON.stringify(text);

/** The y channel of a chart over steps, without its field. */
function yChannel(options: LineChartOptions) {
  return {
    type: "quantitative" as const,
    title: options.yTitle,
    scale: options.yDomain ? { domain: options.yDomain, zero: false } : { zero: options.yZero ?? false },
    axis: { format: options.yFormat ?? DEFAULT_FORMAT },
  };
}

/** The colour channel of a series; a lone series needs no legend. */
function seriesColor(series: readonly string[], options: LineChartOptions) {
  return {
    field: "series",
    type: "nominal" as const,
    title: null,
    scale: options.colors ?? {},
    sort: options.colors?.domain ?? null,
    ...(new Set(series).size < 2 ? { legend: null } : {}),
  };
}

/**
 * One line per series over steps, with a point on every value: a run of one step still shows its
 * values, and a hover title gives the exact number.
 */
export function lineChart(
  meta: Omit<Chart, "spec">,
  points: readonly SeriesPoint[],
  options: LineChartOptions,
): Chart {
  const lineDescription = describe(
    `datum.series + " · " + ${literal(options.xTitle)} + " " + datum.x + ": " + format(datum.y, ${literal(options.yFormat ?? DEFAULT_FORMAT)})`,
  );
  return {
    ...meta,
    spec: {
      ...FRAME,
      data: { values: points.map((p) => ({ ...p })) },
      transform: lineDescription.transform,
      mark: { type: "line", point: { size: 36 }, strokeWidth: 2 },
      encoding: {
        x: { field: "x", type: "quantitative", title: options.xTitle, axis: { tickMinStep: 1, format: "d" } },
        y: { ...yChannel(options), field: "y" },
        color: seriesColor(
          points.map((p) => p.series),
          options,
        ),
        description: lineDescription.description,
      },
    },
  };
}

export interface BandPoint {
  x: number;
  series: string;
  mean: number;
  lo: number;
  hi: number;
}

/** A mean line per series over a shaded band (e.g. the spread over seeds). */
export function bandChart(
  meta: Omit<Chart, "spec">,
  points: readonly BandPoint[],
  options: LineChartOptions,
): Chart {
  // The legend is shared by lines and bands; its swatches take the line's full colour.
  const color = {
    ...seriesColor(
      points.map((p) => p.series),
      options,
    ),
    legend: { symbolOpacity: 1 },
  };
  const y = yChannel(options);
  return {
    ...meta,
    spec: {
      ...FRAME,
      data: { values: points.map((p) => ({ ...p })) },
      encoding: { x: { field: "x", type: "quantitative", title: options.xTitle, axis: { format: "d" } } },
      layer: [
        {
          mark: { type: "area", opacity: 0.22 },
          encoding: { y: { ...y, field: "lo" }, y2: { field: "hi" }, color },
        },
        {
          mark: { type: "line", strokeWidth: 2 },
          encoding: {
            y: { ...y, field: "mean" },
            color,
          },
        },
      ],
    },
  };
}

export interface ScatterPoint {
  x: number;
  y: number;
  series: string;
  shape: string;
  label: string;
}

/** Points coloured by series and shaped by a category, with a zero rule on y. */
export function scatterChart(
  meta: Omit<Chart, "spec">,
  points: readonly ScatterPoint[],
  options: LineChartOptions & { shapeTitle: string },
): Chart {
  const pointDescription = describe(
    `datum.label + " · " + datum.series + " " + format(datum.y, "+.3f") + " · " + format(datum.x, ",") + " " + ${literal(options.xTitle)}`,
  );
  return {
    ...meta,
    spec: {
      $schema: SCHEMA,
      width: WIDTH,
      height: HEIGHT + 40,
      config: CONFIG,
      layer: [
        {
          data: { values: [{ y: 0 }] },
          mark: { type: "rule", color: "#888", strokeDash: [3, 3] },
          encoding: { y: { field: "y", type: "quantitative" } },
        },
        {
          data: { values: points.map((p) => ({ ...p })) },
          transform: pointDescription.transform,
          mark: { type: "point", filled: true, size: 50, opacity: 0.75 },
          encoding: {
            x: { field: "x", type: "quantitative", title: options.xTitle, scale: { zero: false } },
            y: { field: "y", type: "quantitative", title: options.yTitle },
            color: seriesColor(
              points.map((p) => p.series),
              options,
            ),
            shape: { field: "shape", type: "nominal", title: options.shapeTitle },
            description: pointDescription.description,
          },
        },
      ],
    },
  };
}

export interface BarValue {
  /** The row (a candidate); rows keep the order they come in. */
  row: string;
  series: string;
  value: number;
}

/** Horizontal bars, one row per item and one bar per series in it, around a zero line. */
export function groupedBarChart(
  meta: Omit<Chart, "spec">,
  values: readonly BarValue[],
  options: { xTitle: string; colors?: { domain: string[]; range: string[] } },
): Chart {
  const rows = [...new Set(values.map((v) => v.row))];
  const barDescription = describe(`datum.row + " · " + datum.series + " " + format(datum.value, "+.3f")`);
  return {
    ...meta,
    spec: {
      $schema: SCHEMA,
      width: 260,
      height: { step: 9 },
      config: { ...CONFIG, axis: { ...CONFIG.axis, grid: false } },
      data: { values: values.map((v) => ({ ...v })) },
      transform: barDescription.transform,
      encoding: {
        y: { field: "row", type: "nominal", title: null, sort: rows, axis: { labelLimit: 220 } },
      },
      layer: [
        {
          mark: { type: "bar", height: { band: 1 } },
          encoding: {
            x: { field: "value", type: "quantitative", title: options.xTitle },
            yOffset: { field: "series", sort: options.colors?.domain ?? null },
            color: {
              field: "series",
              type: "nominal",
              title: null,
              scale: options.colors ?? {},
              sort: options.colors?.domain ?? null,
            },
            description: barDescription.description,
          },
        },
        { mark: { type: "rule", color: "#555" }, encoding: { x: { datum: 0 } } },
      ],
    },
  };
}
