import type { Finding } from "../contracts/finding.ts";
import type { CandidateRuns, ComparisonOptions, Subject } from "./compare.ts";
import type { ProbeSpec } from "./types.ts";
import { describeValue } from "./values.ts";

/**
 * The second verdict channel: assertions of tests the verifier reported passed that do not hold on the
 * tests' own inputs where they hold for the reference (or a majority) — critical when every probe run
 * of the candidate agrees, major from a single run.
 */
export function verdictChannel(
  candidate: CandidateRuns,
  reference: Subject | null,
  others: readonly Subject[],
  probes: ReadonlyMap<string, ProbeSpec>,
  options: ComparisonOptions,
): Finding[] {
  const statuses = candidate.tests;
  if (!statuses || candidate.runs.length === 0) return [];
  const found: { probe: ProbeSpec; slot: string; value: unknown; expected: unknown }[] = [];
  for (const [key, o] of candidate.runs[0]!.observations) {
    const probe = probes.get(o.probe);
    if (!probe || probe.perturbation || o.slot === "end") continue;
    const status =
      statuses[`${probe.testId}${o.instance && !/^\d+$/.test(o.instance) ? o.instance : ""}`] ??
      statuses[probe.testId];
    if (status !== "passed") continue;
    if (!candidate.runs.every((r) => r.observations.get(key)?.held === false)) continue;
    const holds = (s: Subject) =>
      s.runs.length > 0 && s.runs.every((r) => r.observations.get(key)?.held === true);
    const confirmed = reference
      ? holds(reference)
      : others.filter(holds).length >= options.quorum && others.filter(holds).length * 2 > others.length;
    if (!confirmed) continue;
    found.push({ probe, slot: o.slot, value: o.value, expected: o.expected });
  }
  if (found.length === 0) return [];
  const repeated = candidate.runs.length >= 2;
  const first = found[0]!;
  return [
    {
      kind: "behaviour-divergence",
      severity: repeated ? "critical" : "major",
      file: first.probe.file,
      line: first.probe.line,
      message: `${candidate.id}: ${found.length} assertion${found.length === 1 ? "" : "s"} of tests reported passed do not hold on the tests' own inputs in ${repeated ? "every probe run" : "the probe run"} (they hold for the ${reference ? "reference" : "majority"}): the run that passed them did not check them; e.g. ${found
        .slice(0, options.maxExamples)
        .map(
          (f) =>
            `${f.probe.testId} (${f.slot}): got ${describeValue(f.value, 80)}, the test expects ${describeValue(f.expected, 80)}`,
        )
        .join("; ")}`,
      channel: "verdict",
      probes: found.slice(0, options.maxExamples).map((f) => ({
        probe: f.probe.id,
        test: f.probe.testId,
        slot: f.slot,
        candidate: describeValue(f.value),
        expected: describeValue(f.expected),
      })),
    },
  ];
}
