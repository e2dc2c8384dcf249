import type { Finding } from "../contracts/finding.ts";
import type { Group } from "../contracts/group.ts";

/**
 * What the probe stage hands on for one group (pure): its findings joined to the candidates' own, so
 * that every grader (the static grader's ranking, the agent's hints) and the veto see them as they see
 * the verifier's; and the summary a ranking carries for the report (`Ranking.probes`).
 */
export interface ProbeSummary {
  /** `behaviour-divergence` findings by candidate id. */
  findings: Record<string, Finding[]>;
  probes: number;
  runs: number;
  durationMs: number;
  unprobed: { id: string; reason: string }[];
  skipped?: string;
}

/** The group with each candidate's probe findings appended to its own (the group is not changed). */
export function withProbeFindings(
  group: Group,
  findings: Readonly<Record<string, readonly Finding[]>>,
): Group {
  return {
    ...group,
    candidates: group.candidates.map((c) => {
      const extra = findings[c.id];
      if (!extra?.length) return c;
      const own = c.findings ?? [];
      const seen = new Set(own.map(findingKey));
      const added = extra.filter((f) => {
        const key = findingKey(f);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return { ...c, findings: [...own, ...added] };
    }),
  };
}

/** The summary as it is stored with a ranking: small (findings keep their probe examples), JSON-safe. */
export function probeSummaryOf(summary: ProbeSummary): ProbeSummary {
  return {
    findings: summary.findings,
    probes: summary.probes,
    runs: summary.runs,
    durationMs: Math.round(summary.durationMs),
    unprobed: summary.unprobed,
    ...(summary.skipped !== undefined && { skipped: summary.skipped }),
  };
}

/** A ranking's probe summary, when it carries one (rankings are loose objects: older ones have none). */
export function rankingProbes(ranking: object | undefined): ProbeSummary | undefined {
  const p = (ranking as { probes?: unknown } | undefined)?.probes;
  if (typeof p !== "object" || p === null) return undefined;
  const s = p as Partial<ProbeSummary>;
  if (typeof s.findings !== "object" || s.findings === null || typeof s.durationMs !== "number")
    return undefined;
  return {
    findings: s.findings,
    probes: s.probes ?? 0,
    runs: s.runs ?? 0,
    durationMs: s.durationMs,
    unprobed: Array.isArray(s.unprobed) ? s.unprobed : [],
    ...(typeof s.skipped === "string" && { skipped: s.skipped }),
  };
}

function findingKey(f: Finding): string {
  return `${f.kind}\u0000${f.severity}\u0000${f.file ?? ""}\u0000${f.line ?? ""}\u0000${f.message}`;
}
