import type { Finding } from "../../contracts/finding.ts";
import { bordaTiers, positionConsistency } from "./borda.ts";
import { labelMap } from "./labels.ts";
import type { SessionRecord } from "./session.ts";

/** One pass over a group: its session, and the ids in the order shown (label i = order[i]). */
export interface PassRecord extends SessionRecord {
  pass: number;
  order: string[];
}

export type PassesVerdict =
  | {
      ok: true;
      tiers: string[][];
      findings: Record<string, Finding[]>;
      submitted: number;
      consistency: number | null;
    }
  | { ok: false; reason: string; submitted: number; consistency: number | null };

/**
 * Combines a group's passes: each submission is mapped from labels back to ids; if at least
 * ⌈K/2⌉ of the K planned passes submitted, their rankings are aggregated by Borda into tiers and
 * their findings merged; otherwise the verdict says why not, pass by pass.
 */
export function aggregatePasses(records: PassRecord[], plannedPasses: number): PassesVerdict {
  const submitted = records.flatMap((r) =>
    r.outcome.kind === "submitted" ? [{ r, s: r.outcome.submission }] : [],
  );
  const rankings = submitted.map(({ r, s }) => s.ranking.map((tier) => idsOf(r.order, tier)));
  const consistency = positionConsistency(rankings);
  const quorum = Math.ceil(plannedPasses / 2);
  if (submitted.length < quorum) {
    return {
      ok: false,
      reason: failureReason(records, plannedPasses, quorum),
      submitted: submitted.length,
      consistency,
    };
  }
  const findings = mergeFindings(
    submitted.map(({ r, s }) =>
      Object.fromEntries(Object.entries(s.findings).map(([label, fs]) => [idsOf(r.order, [label])[0]!, fs])),
    ),
  );
  return { ok: true, tiers: bordaTiers(rankings), findings, submitted: submitted.length, consistency };
}

/** Prompt and completion tokens and HTTP requests over passes. */
export function passUsage(records: PassRecord[]): {
  promptTokens: number;
  completionTokens: number;
  requests: number;
} {
  return records.reduce(
    (u, r) => ({
      promptTokens: u.promptTokens + r.usage.promptTokens,
      completionTokens: u.completionTokens + r.usage.completionTokens,
      requests: u.requests + r.usage.requests,
    }),
    { promptTokens: 0, completionTokens: 0, requests: 0 },
  );
}

/** Union of findings per candidate, without exact duplicates. */
export function mergeFindings(sources: Array<Record<string, Finding[]>>): Record<string, Finding[]> {
  const out: Record<string, Finding[]> = {};
  const seen = new Set<string>();
  for (const source of sources) {
    for (const [id, findings] of Object.entries(source)) {
      for (const f of findings) {
        const key = JSON.stringify([id, f.kind, f.severity, f.file, f.line, f.message]);
        if (seen.has(key)) continue;
        seen.add(key);
        out[id] = [...(out[id] ?? []), f];
      }
    }
  }
  return out;
}

function idsOf(order: string[], labels: string[]): string[] {
  const idOf = labelMap(order).idOf;
  return labels.map((l) => idOf.get(l)!);
}

function failureReason(records: PassRecord[], planned: number, quorum: number): string {
  const failures = records.flatMap((r) =>
    r.outcome.kind === "failed" ? [`pass ${r.pass + 1}: ${r.outcome.reason}`] : [],
  );
  const skipped = planned - records.length;
  return [
    `${records.length - failures.length} of ${planned} passes submitted a valid ranking, ${quorum} needed`,
    ...failures,
    ...(skipped ? [`${skipped} later pass${skipped > 1 ? "es" : ""} skipped`] : []),
  ].join("; ");
}
