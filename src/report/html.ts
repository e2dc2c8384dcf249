import type { Chart } from "./charts.ts";

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number with an explicit sign, so columns of advantages line up. */
export function signed(x: number, digits = 3): string {
  return (x >= 0 ? "+" : "") + x.toFixed(digits);
}

export function percent(x: number, digits = 1): string {
  return `${(100 * x).toFixed(digits)}%`;
}

/** A rendered chart: its SVG (rendered in Node) inside a figure with the chart's title and caption. */
export function chartFigure(chart: Chart, svg: string): string {
  return (
    `<figure class="chart" id="chart-${escapeHtml(chart.name)}">` +
    `<figcaption><b>${escapeHtml(chart.title)}</b> ${escapeHtml(chart.caption)}</figcaption>${svg}</figure>`
  );
}

export interface PageOptions {
  title: string;
  /** Lines under the title (already HTML). */
  subtitle: string;
  /** Sections in order, already HTML. */
  body: string;
  /** Inline script run at the end of the body; none when the page is static. */
  script?: string;
}

/**
 * A self-contained page: inline style and script, inline SVG charts, and a Content-Security-Policy
 * that allows nothing to load from anywhere, so the file works opened from disk and cannot reach
 * the network when it is viewed.
 */
export function renderPage(page: PageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(page.title)}</h1><p class="sub">${page.subtitle}</p></header>
<main>
${page.body}
</main>
${page.script ? `<script>${page.script}</script>` : ""}
</body>
</html>
`;
}

/** A section with an anchor, for the table of contents of long reports. */
export function section(id: string, title: string, html: string): string {
  return `<section id="${escapeHtml(id)}"><h2>${escapeHtml(title)}</h2>${html}</section>`;
}

const STYLE = `
:root { --fg: #1d2026; --muted: #5f6672; --line: #d9dde3; --bg: #fff; --soft: #f5f6f8;
  --add: #e6f4ea; --add-fg: #0f5f2a; --del: #fdecea; --del-fg: #8a1c12; --mark: #fff3bf;
  --grpo: #e8833a; --gagar: #3b6ea8; --crit: #b3261e; --major: #c26a00; --minor: #6b7280; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 18px 28px 10px; border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
.sub { margin: 0; color: var(--muted); }
main { padding: 0 28px 40px; max-width: 1480px; }
.tables { display: flex; flex-wrap: wrap; gap: 0 28px; }
.charts { display: flex; flex-wrap: wrap; gap: 14px 22px; }
figure.chart { margin: 0; width: 430px; }
figure.chart figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; min-height: 3.2em; }
figure.chart figcaption b { color: var(--fg); display: block; font-size: 13px; }
figure.chart svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { font-weight: 600; background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.config { background: var(--soft); padding: 10px 12px; border-radius: 4px; max-height: 420px; overflow: auto; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 11px; border: 1px solid var(--line); white-space: nowrap; }
.badge.pass { background: var(--add); color: var(--add-fg); border-color: #b7dfc4; }
.badge.fail { background: var(--del); color: var(--del-fg); border-color: #f3c1bb; }
.badge.kept { background: #e8f0fb; color: var(--gagar); border-color: #c4d6ee; }
.badge.dropped { color: var(--muted); }
.sev-critical { color: var(--crit); font-weight: 600; }
.sev-major { color: var(--major); font-weight: 600; }
.sev-minor { color: var(--minor); }
.findings { margin: 0; padding-left: 16px; }
.findings li { margin: 0; }
.filters { position: sticky; top: 0; z-index: 2; background: var(--bg); padding: 8px 0; border-bottom: 1px solid var(--line);
  display: flex; gap: 18px; align-items: center; flex-wrap: wrap; }
.filters label { color: var(--muted); }
.group { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.group[hidden] { display: none; }
/* Groups off screen are not laid out until scrolled to: a report of many groups opens fast. */
.group { content-visibility: auto; contain-intrinsic-size: auto 700px; }
.group h3 { margin: 0 0 4px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.group .ranking { color: var(--muted); margin: 4px 0 8px; font-size: 13px; }
.group-body { display: flex; gap: 18px; flex-wrap: wrap; align-items: flex-start; }
.group-body figure.chart { width: 340px; }
details.more summary { cursor: pointer; color: var(--muted); font-size: 12px; padding-left: 16px; }
details.diff { margin: 2px 0; }
details.diff summary { cursor: pointer; color: var(--gagar); font-size: 12px; }
.diff-file { margin: 6px 0 10px; border: 1px solid var(--line); border-radius: 4px; overflow-x: auto; }
.diff-file .path { background: var(--soft); padding: 3px 8px; font: 600 12px ui-monospace, monospace; border-bottom: 1px solid var(--line); }
.diff-file table { width: 100%; font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.diff-file td { border: 0; padding: 0 6px; white-space: pre; }
.diff-file td.ln { color: var(--muted); text-align: right; user-select: none; width: 1%; }
.diff-file tr.add td.code { background: var(--add); }
.diff-file tr.del td.code { background: var(--del); }
.diff-file tr.hunk td { background: #eef2f8; color: var(--muted); }
.diff-file tr.marked td.ln { background: var(--mark); color: var(--fg); font-weight: 600; }
.muted { color: var(--muted); }
.note { background: var(--soft); border-left: 3px solid var(--gagar); padding: 8px 12px; margin: 10px 0; max-width: 980px; }
`;
