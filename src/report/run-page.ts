import type { StepMetrics } from "../metrics/step-metrics.ts";
import { rankingProbes } from "../probe/group-findings.ts";
import { type DiffSummary, renderDiff } from "./diff-view.ts";
import { chartFigure, escapeHtml, percent, renderPage, section, signed } from "./html.ts";
import { PAGE_SCRIPT } from "./page-script.ts";
import { renderSvg } from "./render-chart.ts";
import { candidateLabel, groupAdvantageChart, runCharts } from "./run-charts.ts";
import {
  type CandidateData,
  type GroupData,
  isVetoed,
  type OutputFile,
  type RunData,
  type StepData,
} from "./run-data.ts";

/**
 * Each distinct patch is rendered once and put in the page once, as an HTML string in a JSON data
 * block that a diff reads when first opened: the browser does not parse thousands of diff lines
 * into elements before anyone asks to see them.
 */
type RenderedPatch = { html: string; summary: DiffSummary };

/** Findings listed in a candidate's row; the rest (a reformatted file yields one per hunk) fold away. */
const FINDINGS_SHOWN = 3;

const SEVERITY_ORDER: Record<string, number> = { critical: 0, major: 1, minor: 2 };

/**
 * The report of one run as a self-contained HTML page: per-step curves, GRPO vs GAGAR, every group
 * with its candidates (verdict, tier, advantages as bars, findings, the patch as a collapsed diff)
 * behind task and finding filters, and the run's resolved config and files.
 */
export async function renderRunReport(run: RunData): Promise<string> {
  const charts = runCharts(run);
  const figures = new Map<string, string>();
  for (const chart of charts)
    figures.set(chart.name, chartFigure(chart, await renderSvg(chart.spec, chart.name)));
  const figure = (name: string) => figures.get(name) ?? "";
  const curves = [
    "pass-rate",
    "groups",
    "rollouts-per-kept-group",
    "tokens",
    "turns",
    "patch-size",
    "grader",
  ];
  const comparison = ["advantage-spread", "token-correlation", "advantage-vs-tokens"];
  const finished = run.steps.filter((s) => s.metrics).length;
  const body = [
    section("steps", "Steps", stepTable(run.steps)),
    section(
      "curves",
      "Per-step curves",
      finished ? `<div class="charts">${curves.map(figure).join("")}</div>` : noFinishedSteps(),
    ),
    section(
      "grpo-vs-gagar",
      "GRPO vs GAGAR",
      finished ? `<div class="charts">${comparison.map(figure).join("")}</div>` : noFinishedSteps(),
    ),
    section("groups", "Groups", await groupsSection(run.steps)),
    section("run", "Run", runSection(run)),
  ].join("\n");
  const latest = run.steps.filter((s) => s.metrics).at(-1)?.metrics;
  return renderPage({
    title: `gagar run report · ${run.runId}`,
    subtitle:
      `created ${escapeHtml(run.createdAt)} · ${run.steps.length} step(s), ${finished} finished · store <code>${escapeHtml(run.storeFile)}</code>` +
      (latest
        ? `<br>latest step: pass rate ${percent(latest.passRate)} · ${latest.groupsKept}/${latest.groupsGenerated} groups kept · ` +
          `${latest.advantage.redistributedGroups} redistributed`
        : ""),
    body,
    script: PAGE_SCRIPT,
  });
}

function noFinishedSteps(): string {
  return `<p class="muted">No finished step yet: metrics are written when a step finishes.</p>`;
}

interface Column {
  head: string;
  metric: string;
  cell: (m: StepMetrics) => string;
}

/** Each column names the stored metric it shows (`data-metric`), so a reader can check it against the store. */
const STEP_COLUMNS: Column[] = [
  { head: "pass rate", metric: "passRate", cell: (m) => percent(m.passRate) },
  { head: "groups kept", metric: "groupsKept", cell: (m) => `${m.groupsKept}/${m.groupsGenerated}` },
  { head: "rounds", metric: "rounds", cell: (m) => String(m.rounds) },
  {
    head: "rollouts / kept group",
    metric: "rolloutsPerKeptGroup",
    cell: (m) => m.rolloutsPerKeptGroup.toFixed(1),
  },
  {
    head: "tokens mean · p50 · p90",
    metric: "tokens",
    cell: (m) => `${m.tokens.mean.toFixed(0)} · ${m.tokens.p50} · ${m.tokens.p90}`,
  },
  { head: "turns mean", metric: "turns.mean", cell: (m) => m.turns.mean.toFixed(1) },
  { head: "passing patch lines", metric: "passingPatchLines", cell: (m) => m.passingPatchLines.toFixed(1) },
  {
    head: "advantage spread GRPO → GAGAR",
    metric: "advantage.passingStd",
    cell: (m) => `${m.advantage.passingStdGrpo.toFixed(3)} → ${m.advantage.passingStdGagar.toFixed(3)}`,
  },
  {
    head: "corr(adv, tokens) GRPO → GAGAR",
    metric: "advantage.tokenCorrelation",
    cell: (m) =>
      `${m.advantage.tokenCorrelationGrpo.toFixed(2)} → ${m.advantage.tokenCorrelationGagar.toFixed(2)}`,
  },
  {
    head: "redistributed",
    metric: "advantage.redistributedGroups",
    cell: (m) => String(m.advantage.redistributedGroups),
  },
  { head: "grader calls", metric: "grader.calls", cell: (m) => String(m.grader.calls) },
  { head: "fallbacks", metric: "grader.fallbacks", cell: (m) => String(m.grader.fallbacks) },
  { head: "vetoed", metric: "grader.vetoed", cell: (m) => String(m.grader.vetoed) },
  {
    head: "probe time",
    metric: "stageMs.probe",
    cell: (m) => `${((m.stageMs.probe ?? 0) / 1000).toFixed(1)} s`,
  },
  { head: "time", metric: "stageMs.total", cell: (m) => `${((m.stageMs.total ?? 0) / 1000).toFixed(1)} s` },
];

function stepTable(steps: readonly StepData[]): string {
  if (!steps.length) return `<p class="muted">The run has no step yet.</p>`;
  const head = `<tr><th>step</th>${STEP_COLUMNS.map((c) => `<th class="num">${escapeHtml(c.head)}</th>`).join("")}</tr>`;
  const rows = steps.map((s) => {
    const cells = s.metrics
      ? STEP_COLUMNS.map(
          (c) =>
            `<td class="num" data-step="${s.idx}" data-metric="${c.metric}">${escapeHtml(c.cell(s.metrics!))}</td>`,
        ).join("")
      : `<td colspan="${STEP_COLUMNS.length}" class="muted">${s.status === "running" ? "running (or interrupted: resume it with gagar run --resume)" : ""}</td>`;
    return `<tr><td><a href="#step-${s.idx}">${s.idx}</a></td>${cells}</tr>`;
  });
  return `<div class="scroll"><table class="steps">${head}${rows.join("")}</table></div>`;
}

async function groupsSection(steps: readonly StepData[]): Promise<string> {
  const groups = steps.flatMap((s) => s.groups);
  if (!groups.length) return `<p class="muted">No group recorded yet.</p>`;
  const tasks = [...new Set(groups.map((g) => g.taskId))].sort();
  const kinds = [
    ...new Set(groups.flatMap((g) => g.candidates.flatMap((c) => c.findings.map((f) => f.kind)))),
  ].sort();
  const option = (value: string, label = value) =>
    `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;
  const filters =
    `<div class="filters">` +
    `<label>task <select id="filter-task">${option("", "all tasks")}${tasks.map((t) => option(t)).join("")}</select></label>` +
    `<label>finding <select id="filter-kind">${option("", "any or none")}${option("none", "no finding")}${kinds.map((k) => option(k)).join("")}</select></label>` +
    `<label><input type="checkbox" id="filter-dropped"> show dropped groups</label>` +
    `<span id="filter-count" class="muted"></span></div>`;
  const patches = new Map<string, RenderedPatch>();
  const parts: string[] = [filters];
  for (const step of steps) {
    parts.push(`<h3 id="step-${step.idx}">Step ${step.idx}</h3>`);
    for (const group of step.groups) parts.push(await groupArticle(group, patches));
  }
  const diffs = Object.fromEntries([...patches].map(([sha, { html }]) => [sha, html]));
  return `${parts.join("\n")}<script type="application/json" id="patches">${jsonForScript(diffs)}</script>`;
}

/**
 * JSON safe inside a <script> element: `</` (which could close it) becomes `<\/` and `<!` (which
 * could open a comment) `\u003c!`, both the same string to JSON.parse.
 */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/<\//g, "<\\/").replace(/<!/g, "\\u003c!");
}

/** Best first: ranked passes by tier, then other passes, then failures (stable within each). */
function displayOrder(group: GroupData): number[] {
  const rank = (c: CandidateData) =>
    c.verdict?.passed
      ? (c.advantage?.tier ?? tierInRanking(group, c.id) ?? Number.MAX_SAFE_INTEGER - 1)
      : Number.MAX_SAFE_INTEGER;
  return group.candidates
    .map((c, i) => ({ i, key: rank(c) }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.i);
}

function tierInRanking(group: GroupData, id: string): number | undefined {
  const t = group.ranking?.ranking.findIndex((tier) => tier.includes(id)) ?? -1;
  return t < 0 ? undefined : t;
}

async function groupArticle(group: GroupData, patches: Map<string, RenderedPatch>): Promise<string> {
  const passed = group.candidates.filter((c) => c.verdict?.passed).length;
  const kinds = [...new Set(group.candidates.flatMap((c) => c.findings.map((f) => f.kind)))].sort();
  const status =
    group.kept === null
      ? `<span class="badge">undecided</span>`
      : group.kept
        ? `<span class="badge kept">kept</span>`
        : `<span class="badge dropped">dropped: ${escapeHtml(group.dropReason ?? "")}</span>`;
  const order = displayOrder(group);
  const chart = groupAdvantageChart(group, order);
  const figure = chart ? chartFigure(chart, await renderSvg(chart.spec, chart.name)) : "";
  const rows = order.map((i) => candidateRows(group, group.candidates[i]!, patches)).join("");
  return (
    `<article class="group" data-task="${escapeHtml(group.taskId)}" data-kinds="${escapeHtml(kinds.join(" "))}" ` +
    `data-kept="${group.kept ? 1 : 0}" data-group="${escapeHtml(group.id)}">` +
    `<h3>${escapeHtml(group.taskId)} ${status} <span class="muted">${passed}/${group.candidates.length} passed · round ${group.round} · ${escapeHtml(group.id)}</span></h3>` +
    rankingLine(group) +
    `<div class="group-body">${figure}<div class="scroll"><table class="candidates">` +
    `<tr><th>candidate</th><th>verdict</th><th class="num">tier</th><th class="num">GRPO</th><th class="num">GAGAR</th>` +
    `<th class="num">weight</th><th class="num">tokens</th><th class="num">turns</th><th>findings</th></tr>` +
    `${rows}</table></div></div></article>`
  );
}

function rankingLine(group: GroupData): string {
  const r = group.ranking;
  if (!r) {
    const why = group.kept ? "fewer than two passes, nothing to rank" : "not graded";
    return `<p class="ranking">${why}</p>`;
  }
  const fallback = r.grader.fallback
    ? ` (fell back from ${escapeHtml(r.grader.fallback.from)}: ${escapeHtml(r.grader.fallback.reason)})`
    : "";
  const tiers = r.ranking
    .map((t) => t.map((id) => escapeHtml(candidateLabel(group, id))).join(" = "))
    .join(" &gt; ");
  const vetoed = group.candidates.filter(isVetoed).map((c) => escapeHtml(candidateLabel(group, c.id)));
  const veto = vetoed.length
    ? ` · vetoed for a critical finding, scored as failures: ${vetoed.join(", ")}`
    : "";
  const p = rankingProbes(r);
  const probes = p
    ? ` · behavioural probes: ${p.probes} probes, ${p.runs} sandbox run(s), ${(p.durationMs / 1000).toFixed(1)} s` +
      (p.skipped ? `, not compared: ${escapeHtml(p.skipped)}` : "") +
      (p.unprobed.length && !p.skipped
        ? `, not probed: ${p.unprobed.map((u) => escapeHtml(`${u.id} (${u.reason})`)).join(", ")}`
        : "")
    : "";
  return `<p class="ranking">ranking by ${escapeHtml(r.grader.name)} ${escapeHtml(r.grader.version)}${fallback}: ${tiers}${veto}${probes}</p>`;
}

function candidateRows(group: GroupData, c: CandidateData, patches: Map<string, RenderedPatch>): string {
  const a = c.advantage;
  const vetoed = isVetoed(c);
  const title = vetoed
    ? "passed the tests; vetoed for a critical finding, so scored as a failure (advantage.veto)"
    : (c.verdict?.detail ?? "");
  const verdict = c.verdict
    ? `<span class="badge ${c.verdict.passed && !vetoed ? "pass" : "fail"}" title="${escapeHtml(title)}">${vetoed ? "vetoed" : escapeHtml(c.verdict.reason)}</span>`
    : `<span class="muted">not verified</span>`;
  // A candidate with advantages has the tier they were computed with (none for a vetoed pass).
  const tier = a ? a.tier : tierInRanking(group, c.id);
  const num = (text: string, field?: string) =>
    `<td class="num"${field ? ` data-field="${field}"` : ""}>${text}</td>`;
  const findings = [...c.findings].sort(
    (x, y) => (SEVERITY_ORDER[x.severity] ?? 3) - (SEVERITY_ORDER[y.severity] ?? 3),
  );
  const item = (f: CandidateData["findings"][number]) => {
    const where = f.file ? ` <code>${escapeHtml(f.file)}${f.line ? `:${f.line}` : ""}</code>` : "";
    const source = f.source === "grader" ? "" : ` <span class="muted">(${f.source})</span>`;
    return `<li><span class="sev-${escapeHtml(f.severity)}">${escapeHtml(f.severity)}</span> ${escapeHtml(f.kind)}${where} — ${escapeHtml(f.message)}${source}</li>`;
  };
  const shown = findings.slice(0, FINDINGS_SHOWN);
  const more = findings.slice(FINDINGS_SHOWN);
  const findingList =
    (shown.length ? `<ul class="findings">${shown.map(item).join("")}</ul>` : "") +
    (more.length
      ? `<details class="more"><summary>${more.length} more</summary><ul class="findings">${more.map(item).join("")}</ul></details>`
      : "");
  let rendered = patches.get(c.patchSha256);
  if (!rendered) {
    rendered = renderDiff(c.patch);
    patches.set(c.patchSha256, rendered);
  }
  const { summary } = rendered;
  const marks = findings.filter((f) => f.file && f.line).map((f) => [f.file, f.line]);
  const diff =
    `<details class="diff" data-patch="${c.patchSha256}" data-marks="${escapeHtml(JSON.stringify(marks))}">` +
    `<summary>patch of ${escapeHtml(candidateLabel(group, c.id))} · ${summary.files} file(s), +${summary.added} −${summary.removed}</summary>` +
    `<div class="diff-body"></div></details>`;
  return (
    `<tr data-candidate="${escapeHtml(c.id)}"><td><code title="${escapeHtml(c.id)}">${escapeHtml(candidateLabel(group, c.id))}</code></td><td>${verdict}</td>` +
    num(tier === undefined || tier === null ? "-" : String(tier), "tier") +
    num(a ? signed(a.baseAdvantage) : "-", "grpo") +
    num(a ? signed(a.advantage) : "-", "gagar") +
    num(a ? a.weight.toFixed(3) : "-", "weight") +
    num(c.tokens === undefined ? "-" : String(c.tokens), "tokens") +
    num(c.turns === undefined ? "-" : String(c.turns), "turns") +
    `<td>${findingList}</td></tr><tr class="diff-row"><td colspan="9">${diff}</td></tr>`
  );
}

function runSection(run: RunData): string {
  const file = (label: string, f: OutputFile) =>
    `<tr><td>${escapeHtml(label)}</td><td><code>${escapeHtml(f.path)}</code></td><td>${f.exists ? "" : `<span class="muted">missing</span>`}</td></tr>`;
  const rows = [file("resolved config", run.files.config)];
  for (const s of run.steps) {
    rows.push(
      file(`step ${s.idx} batch (JSONL)`, s.files.batchJsonl),
      file(`step ${s.idx} batch (Parquet)`, s.files.batchParquet),
      file(`step ${s.idx} transcripts`, s.files.transcripts),
    );
  }
  return (
    `<h3>Files</h3><p class="muted">store <code>${escapeHtml(run.storeFile)}</code> · run folder <code>${escapeHtml(run.files.runDir)}</code></p>` +
    `<table class="files">${rows.join("")}</table>` +
    `<h3>Resolved config</h3><pre class="config">${escapeHtml(JSON.stringify(run.config, null, 2))}</pre>`
  );
}
