import type { Finding } from "../contracts/finding.ts";
import { renderTable, signed } from "../io/table.ts";
import type { StepMetrics } from "../metrics/step-metrics.ts";
import type { ProbeSummary } from "../probe/group-findings.ts";
import type { StepGroup } from "./step.ts";

const SEVERITY_ORDER: Record<string, number> = { critical: 0, major: 1, minor: 2 };

/**
 * A person-readable account of one group: verdicts, the grader's tiers with the main findings,
 * and GRPO vs GAGAR advantages side by side.
 */
export function renderGroup(g: StepGroup): string {
  const passing = g.group.candidates.filter((c) => c.passed).length;
  const status = g.kept ? "kept" : `dropped (${g.dropReason})`;
  const lines = [`■ ${g.group.id} · ${passing}/${g.group.candidates.length} passed · ${status}`];
  // Best first: ranked passes by tier, then other passes, then failures (stable within each).
  const order = g.group.candidates
    .map((c, i) => ({
      i,
      key: c.passed ? (g.advantages?.rows[i]?.tier ?? Number.MAX_SAFE_INTEGER - 1) : Number.MAX_SAFE_INTEGER,
    }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.i);
  const rows = order.map((i) => {
    const c = g.group.candidates[i]!;
    const verdict = g.verdicts[i]!;
    const row = g.advantages?.rows[i];
    const vetoed = g.advantages?.vetoed.includes(c.id);
    return [
      c.id,
      vetoed ? "vetoed" : verdict.reason,
      row?.tier === null || row === undefined ? "-" : String(row.tier),
      row ? signed(row.baseAdvantage) : "-",
      row ? signed(row.advantage) : "-",
      String(c.trajectory?.tokens ?? "-"),
      topFinding(g.ranking?.findings[c.id] ?? []),
    ];
  });
  lines.push(
    renderTable(["candidate", "verdict", "tier", "GRPO", "GAGAR", "tokens", "main finding"], rows, "  "),
  );
  if (g.ranking) {
    const tiers = g.ranking.ranking.map((t) => t.join(" = ")).join("  >  ");
    const fallback = g.ranking.grader.fallback ? ` (fell back from ${g.ranking.grader.fallback.from})` : "";
    lines.push(`  ranking by ${g.ranking.grader.name}${fallback}: ${tiers}`);
  }
  if (g.probes) lines.push(`  ${probeLine(g.probes)}`);
  const vetoed = g.advantages?.vetoed ?? [];
  if (vetoed.length)
    lines.push(`  vetoed for a critical finding, scored as failures (advantage.veto): ${vetoed.join(", ")}`);
  if (g.advantages?.skipped && g.kept) lines.push(`  advantages unchanged: ${g.advantages.skipped}`);
  return lines.join("\n");
}

/** The behavioural probes of a group in one line: who diverged how (their time is in the step's metrics). */
function probeLine(p: ProbeSummary): string {
  const cost = `${p.probes} probes, ${p.runs} sandbox run${p.runs === 1 ? "" : "s"}`;
  if (p.skipped) return `probes: ${cost}, not compared: ${p.skipped}`;
  const found = Object.entries(p.findings)
    .map(([id, fs]) => {
      const worst = fs.some((f) => f.severity === "critical") ? "overfitting" : "diverges";
      return `${id} ${worst} (${fs.length})`;
    })
    .join(", ");
  const unprobed = p.unprobed.length ? `; not probed: ${p.unprobed.map((u) => u.id).join(", ")}` : "";
  return `probes: ${cost}, ${found || "no divergence"}${unprobed}`;
}

function topFinding(findings: readonly Finding[]): string {
  const top = [...findings].sort(
    (a, b) => (SEVERITY_ORDER[a.severity] ?? 3) - (SEVERITY_ORDER[b.severity] ?? 3),
  )[0];
  if (!top) return "";
  const where = top.file ? ` ${top.file}${top.line ? `:${top.line}` : ""}` : "";
  const more = findings.length > 1 ? ` (+${findings.length - 1})` : "";
  return `${top.severity} ${top.kind}${where}${more}`;
}

export function renderMetrics(m: StepMetrics): string {
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const dist = (d: { mean: number; p50: number; p90: number }) =>
    `mean ${d.mean.toFixed(0)} · p50 ${d.p50} · p90 ${d.p90}`;
  const seconds = (key: string) => `${((m.stageMs[key] ?? 0) / 1000).toFixed(1)}s`;
  const stages =
    `sampling ${seconds("sampling")} (sandboxes busy ${seconds("verifyBusy")}) · ` +
    (m.stageMs.probe ? `probes ${seconds("probe")} · ` : "") +
    `grading ${seconds("grade")} · ` +
    `advantages ${seconds("advantage")} · total ${seconds("total")}`;
  return [
    `pass rate ${pct(m.passRate)} · groups kept ${m.groupsKept}/${m.groupsGenerated} in ${m.rounds} round(s) · ${m.rolloutsPerKeptGroup.toFixed(1)} rollouts per kept group`,
    `trajectory tokens ${dist(m.tokens)} · turns ${dist(m.turns)} · passing patch size ${m.passingPatchLines.toFixed(1)} lines`,
    `advantage spread among passes: GRPO ${m.advantage.passingStdGrpo.toFixed(3)} → GAGAR ${m.advantage.passingStdGagar.toFixed(3)} · ` +
      `corr(advantage, tokens) among passes: GRPO ${m.advantage.tokenCorrelationGrpo.toFixed(2)} → GAGAR ${m.advantage.tokenCorrelationGagar.toFixed(2)} · ` +
      `${m.advantage.redistributedGroups} group(s) redistributed`,
    `verifications ${m.verifications.fresh} new, ${m.verifications.reused} reused · grader calls ${m.grader.calls} · ` +
      `fallbacks ${m.grader.fallbacks} · vetoed ${m.grader.vetoed}`,
    `time: ${stages}`,
  ].join("\n");
}
