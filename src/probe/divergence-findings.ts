import type { Finding } from "../contracts/finding.ts";
import type { ComparisonOptions, Divergence } from "./compare.ts";
import { describeValue } from "./values.ts";

// What a candidate's divergences from the oracle say about it, as findings (compareProbeRuns's verdict).

/** A string perturbation's family: `sub@3` → sub, `+1@8` → digits, `dropline@2` → lines. */
function opFamily(op: string): string {
  if (/^[+-]1@/.test(op)) return "digits";
  if (op.endsWith("line") || /line@/.test(op)) return "lines";
  return op.split("@")[0]!;
}

const BELOW = /^(-1|-2|-step|-2step)$/;
const ABOVE = /^(\+1|\+2|\+step|\+2step)$/;

/**
 * Whether a candidate's confident divergences read as overfitting to the tests (the rule is in
 * compare.ts's header: values off on neighbours of two tested inputs, on both sides of a number, under
 * two kinds of change of a string, or raising on neighbours of `minRaisingLiterals` inputs).
 */
export function isOverfitting(divergences: readonly Divergence[], options: ComparisonOptions): boolean {
  const baseDiverges = new Set(
    divergences.filter((d) => d.confident && !d.probe.perturbation).map((d) => d.probe.testId),
  );
  const evidence = divergences.filter(
    (d) => d.confident && d.probe.perturbation?.kind === "neighbour" && !baseDiverges.has(d.probe.testId),
  );
  // A tested input is identified by what it is, not where: the same value in two tests is one input.
  const literal = (d: Divergence) =>
    `${d.probe.perturbation!.literalKind}\u0000${d.probe.perturbation!.before}`;
  const valued = evidence.filter((d) => d.kind === "value");
  if (new Set(valued.map(literal)).size >= 2) return true;
  const sides = new Map<string, Set<string>>();
  for (const d of valued) {
    const op = d.probe.perturbation!.op;
    const side = BELOW.test(op) ? "below" : ABOVE.test(op) ? "above" : null;
    if (!side) continue;
    const set = sides.get(literal(d)) ?? new Set();
    set.add(side);
    sides.set(literal(d), set);
  }
  if ([...sides.values()].some((s) => s.size === 2)) return true;
  const families = new Map<string, Set<string>>();
  for (const d of valued) {
    if (d.probe.perturbation!.literalKind !== "string") continue;
    const set = families.get(literal(d)) ?? new Set();
    set.add(opFamily(d.probe.perturbation!.op));
    families.set(literal(d), set);
  }
  if ([...families.values()].some((s) => s.size >= 2)) return true;
  const raising = evidence.filter((d) => d.kind === "raises");
  return new Set(raising.map(literal)).size >= options.minRaisingLiterals;
}

/** The behaviour-divergence finding of one candidate: critical when overfitting, else minor. */
export function findingsOf(
  id: string,
  divergences: readonly Divergence[],
  overfitting: boolean,
  options: ComparisonOptions,
  oracle: string,
): Finding[] {
  const confident = divergences.filter((d) => d.confident);
  if (confident.length === 0) return [];
  const ranked = [...confident].sort((a, b) => rank(a) - rank(b));
  const examples = ranked.slice(0, options.maxExamples);
  const first = examples[0]!;
  const neighbours = confident.filter(
    (d) => d.probe.perturbation?.kind === "neighbour" && d.kind === "value",
  ).length;
  const summary = overfitting
    ? `behaves like ${oracle} on the tests' own inputs but not one step away from them (${neighbours} neighbouring input${neighbours === 1 ? " gives" : "s give"} another value): overfitted to the tests`
    : `behaves differently from ${oracle} on ${confident.length} probe${confident.length === 1 ? "" : "s"}`;
  return [
    {
      kind: "behaviour-divergence",
      severity: overfitting ? "critical" : "minor",
      file: first.probe.file,
      line: first.probe.line,
      message: `${id} ${summary}; e.g. ${examples.map(describeDivergence).join("; ")}`,
      probes: examples.map(evidenceOf),
      divergent: confident.length,
    },
  ];
}

/** Neighbour value divergences first: they are the evidence a reviewer wants to see. */
function rank(d: Divergence): number {
  const neighbour = d.probe.perturbation?.kind === "neighbour" ? 0 : d.probe.perturbation ? 2 : 1;
  const kind = ["value", "raises", "error-type", "accepts", "flow"].indexOf(d.kind);
  return neighbour * 10 + kind;
}

function describeDivergence(d: Divergence): string {
  const p = d.probe.perturbation;
  const input = p ? `${p.before} → ${p.text} in ${d.probe.testId}` : `the inputs of ${d.probe.testId}`;
  const at = d.instance && !/^\d+$/.test(d.instance) ? ` ${d.instance}` : "";
  return `${input}${at} (${d.slot}): expected ${describeValue(d.oracle, 80)}, got ${describeValue(d.candidate, 80)}`;
}

function evidenceOf(d: Divergence): Record<string, unknown> {
  const p = d.probe.perturbation;
  return {
    probe: d.probe.id,
    test: d.probe.testId,
    input: p ? { before: p.before, after: p.text, kind: p.kind } : null,
    slot: d.slot,
    instance: d.instance,
    oracle: describeValue(d.oracle),
    candidate: describeValue(d.candidate),
    kind: d.kind,
    witnesses: d.witnesses,
  };
}
