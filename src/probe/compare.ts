import type { Finding } from "../contracts/finding.ts";
import type { TestStatus } from "../contracts/verdict.ts";
import { type ProbeRun, slotKey } from "./channel.ts";
import type { ProbeSpec } from "./types.ts";
import { canonicalKey, describeValue, isRaised, stableJson } from "./values.ts";

/**
 * Comparing the probe runs of a group's passing candidates (pure): per candidate, the probes where it
 * behaves differently from the oracle, and what that says about it.
 *
 * **Stability.** An observation slot (probe, instance, assertion, occurrence) that differs between two
 * runs of the same code — the reference's, or a candidate's when it was run twice — is dropped for
 * everyone: time, randomness, ids and addresses are not behaviour.
 *
 * **Oracle.** A probe's behaviour is the tuple of its stable slots. With a reference, the oracle of a
 * probe is the reference's behaviour, *confident* when the other candidates that agree with it
 * outnumber those that do not (at least one agreeing): where the reference and the majority part,
 * the issue probably leaves the behaviour open. Without a reference, the oracle is the behaviour of a
 * strict majority of the other candidates, with at least `quorum` of them. A candidate is never its
 * own witness. Candidates are clustered by their whole behaviour as well (xTestCluster's idea), for
 * the report.
 *
 * **Overfitting (critical).** A candidate that behaves like the oracle on the tests' own inputs (the
 * base probe of the test) but gives another *value* on inputs one step away, where the oracle is
 * confident: on neighbours of at least two different tested inputs (a tested input is its literal's
 * text: the same value in two tests is one input), on both sides of one number (a special case
 * `1900 if year == 99 else 2000` breaks at 98 and at 100; an honest fix with another policy for an
 * edge the tests do not reach breaks on one side only), or under two kinds of change of one string (a
 * digit stepped and a letter deleted: a table of tested strings breaks under any change). Or one that
 * raises where the oracle returns on neighbours of `minRaisingLiterals` different tested inputs (a
 * table of the tested inputs in front of a code path that still crashes). A neighbour where only the
 * candidate raises, or only the oracle, is what extra validation and honest fixes that skip it look
 * like; another exception type is an honest choice too: alone, each is a minor finding, as is every
 * divergence on a boundary input (0, −1, empty) and any other isolated divergence.
 *
 * **Second verdict channel.** A test the verifier reported passed whose assertion, observed on its
 * own inputs, does not hold — where it holds for the reference (or for a majority) — means the run
 * that passed it did not check what the test says (a silenced assertion library, a rewritten result):
 * critical when every probe run of the candidate agrees, major from a single run.
 */
export interface ComparisonOptions {
  /** Without a reference: candidates that must agree for their behaviour to be the oracle. */
  quorum: number;
  /** Literals on whose neighbours a candidate raises (where the oracle does not) to make it critical. */
  minRaisingLiterals: number;
  /** Probes quoted in a finding. */
  maxExamples: number;
}

export const DEFAULT_COMPARISON_OPTIONS: ComparisonOptions = {
  quorum: 2,
  minRaisingLiterals: 3,
  maxExamples: 4,
};

export interface CandidateRuns {
  id: string;
  /** The candidate's probe runs (one, or two to see its own nondeterminism). */
  runs: readonly ProbeRun[];
  /** The verifier's per-test statuses, for the second verdict channel. */
  tests?: Readonly<Record<string, TestStatus>>;
}

export interface ComparisonInput {
  probes: readonly ProbeSpec[];
  /** The reference's runs (two, to see nondeterminism), or none. */
  reference?: readonly ProbeRun[];
  candidates: readonly CandidateRuns[];
  options?: Partial<ComparisonOptions>;
}

export type DivergenceKind = "value" | "raises" | "accepts" | "error-type" | "flow";

export interface Divergence {
  probe: ProbeSpec;
  instance: string;
  kind: DivergenceKind;
  /** The slot where it shows first (`a2#0`, `end`). */
  slot: string;
  oracle: unknown;
  candidate: unknown;
  /** Subjects behind the oracle (the reference counts one). */
  witnesses: number;
  confident: boolean;
}

export interface CandidateComparison {
  id: string;
  /** The share of the probes that ran to their end in the candidate's first run (a crashed run shows here). */
  coverage: number;
  divergences: Divergence[];
  overfitting: boolean;
  findings: Finding[];
}

export interface Comparison {
  candidates: CandidateComparison[];
  /** Slots dropped as nondeterministic. */
  unstable: string[];
  /** Candidate ids grouped by identical behaviour over every stable slot, largest group first. */
  clusters: string[][];
}

const MISSING = "\u2205";

interface Subject {
  id: string;
  runs: readonly ProbeRun[];
  /** slot key → canonical value, from the first run. */
  canonical: Map<string, string>;
}

export function compareProbeRuns(input: ComparisonInput): Comparison {
  const options = { ...DEFAULT_COMPARISON_OPTIONS, ...input.options };
  const probes = new Map(input.probes.map((p) => [p.id, p]));
  const reference = input.reference?.length ? subject("(reference)", input.reference) : null;
  const candidates = input.candidates.map((c) => subject(c.id, c.runs));
  const all = reference ? [reference, ...candidates] : candidates;

  // Slots by probe and instance, from every run of every subject.
  const slotsByCase = new Map<string, Set<string>>();
  const slotInfo = new Map<string, { probe: string; instance: string; slot: string }>();
  for (const s of all)
    for (const run of s.runs)
      for (const [key, o] of run.observations) {
        if (!probes.has(o.probe)) continue;
        const caseKey = `${o.probe}\u0000${o.instance}`;
        const set = slotsByCase.get(caseKey) ?? new Set<string>();
        slotsByCase.set(caseKey, set);
        set.add(key);
        slotInfo.set(key, { probe: o.probe, instance: o.instance, slot: o.slot });
      }

  const unstable = new Set<string>();
  for (const s of all) {
    if (s.runs.length < 2) continue;
    for (const key of slotInfo.keys()) {
      const seen = new Set(s.runs.map((r) => canonicalOf(r, key)));
      if (seen.size > 1) unstable.add(key);
    }
  }

  const signature = (s: Subject, caseKey: string): string =>
    [...(slotsByCase.get(caseKey) ?? [])]
      .filter((k) => !unstable.has(k))
      .sort()
      .map((k) => s.canonical.get(k) ?? MISSING)
      .join("\u0001");

  const cases = [...slotsByCase.keys()].sort();
  const results: CandidateComparison[] = candidates.map((c, index) => {
    const others = candidates.filter((_, i) => i !== index);
    const divergences: Divergence[] = [];
    for (const caseKey of cases) {
      const [probeId, instance] = caseKey.split("\u0000") as [string, string];
      const mine = signature(c, caseKey);
      const oracle = oracleOf(caseKey, reference, others, signature, options.quorum);
      if (!oracle || oracle.signature === mine) continue;
      const keys = [...slotsByCase.get(caseKey)!].filter((k) => !unstable.has(k)).sort();
      const shown = classify(keys, oracle.subjects, c, slotInfo);
      divergences.push({
        probe: probes.get(probeId)!,
        instance,
        ...shown,
        witnesses: oracle.witnesses,
        confident: oracle.confident,
      });
    }
    const overfitting = isOverfitting(divergences, options);
    const findings = findingsOf(
      c.id,
      divergences,
      overfitting,
      options,
      reference ? "the reference" : "most other candidates",
    );
    const channel = verdictChannel(input.candidates[index]!, reference, others, probes, options);
    const ended = new Set(
      [...(c.runs[0]?.observations.values() ?? [])].filter((o) => o.slot === "end").map((o) => o.probe),
    );
    const coverage = probes.size ? [...probes.keys()].filter((p) => ended.has(p)).length / probes.size : 1;
    return { id: c.id, coverage, divergences, overfitting, findings: [...findings, ...channel] };
  });

  return {
    candidates: results,
    unstable: [...unstable].sort(),
    clusters: clustersOf(candidates, cases, signature),
  };
}

function subject(id: string, runs: readonly ProbeRun[]): Subject {
  const canonical = new Map<string, string>();
  const first = runs[0];
  if (first) for (const [key, o] of first.observations) canonical.set(key, canonicalKey(o.value));
  return { id, runs, canonical };
}

function canonicalOf(run: ProbeRun, key: string): string {
  const o = run.observations.get(key);
  return o ? canonicalKey(o.value) : MISSING;
}

interface Oracle {
  signature: string;
  /** Who shows it: the reference, or the majority. */
  subjects: Subject[];
  witnesses: number;
  confident: boolean;
}

function oracleOf(
  caseKey: string,
  reference: Subject | null,
  others: readonly Subject[],
  signature: (s: Subject, caseKey: string) => string,
  quorum: number,
): Oracle | null {
  const counts = new Map<string, Subject[]>();
  for (const o of others) {
    const sig = signature(o, caseKey);
    const group = counts.get(sig);
    if (group) group.push(o);
    else counts.set(sig, [o]);
  }
  if (reference) {
    const sig = signature(reference, caseKey);
    const agreeing = counts.get(sig)?.length ?? 0;
    const dissenting = others.length - agreeing;
    return {
      signature: sig,
      subjects: [reference],
      witnesses: 1 + agreeing,
      confident: agreeing >= 1 && agreeing > dissenting,
    };
  }
  for (const [sig, group] of counts) {
    if (group.length >= quorum && group.length * 2 > others.length)
      return { signature: sig, subjects: group, witnesses: group.length, confident: true };
  }
  return null;
}

/** The first slot where candidate and oracle differ, and the kind of difference the probe shows. */
function classify(
  keys: readonly string[],
  oracles: readonly Subject[],
  candidate: Subject,
  info: ReadonlyMap<string, { slot: string }>,
): { kind: DivergenceKind; slot: string; oracle: unknown; candidate: unknown } {
  const ORDER: DivergenceKind[] = ["value", "raises", "error-type", "accepts", "flow"];
  let best: { kind: DivergenceKind; slot: string; oracle: unknown; candidate: unknown } | null = null;
  for (const key of keys) {
    const a = oracles[0]!.canonical.get(key);
    const b = candidate.canonical.get(key);
    if (a === b) continue;
    // The oracle's subjects agree up to what the canonical form forgets (messages): the value shown is
    // chosen by content, so it does not depend on the candidates' order or names.
    const oracleValue = oracles
      .map((o) => o.runs[0]!.observations.get(key)?.value)
      .sort((x, y) => (stableJson(x) < stableJson(y) ? -1 : stableJson(x) > stableJson(y) ? 1 : 0))[0];
    const candidateValue = candidate.runs[0]!.observations.get(key)?.value;
    let kind: DivergenceKind;
    if (a === undefined || b === undefined) kind = "flow";
    else if (isRaised(oracleValue) && isRaised(candidateValue)) kind = "error-type";
    else if (isRaised(candidateValue)) kind = "raises";
    else if (isRaised(oracleValue)) kind = "accepts";
    else kind = "value";
    if (!best || ORDER.indexOf(kind) < ORDER.indexOf(best.kind))
      best = { kind, slot: info.get(key)!.slot, oracle: oracleValue, candidate: candidateValue };
  }
  return best ?? { kind: "flow", slot: "end", oracle: undefined, candidate: undefined };
}

/** A string perturbation's family: `sub@3` → sub, `+1@8` → digits, `dropline@2` → lines. */
function opFamily(op: string): string {
  if (/^[+-]1@/.test(op)) return "digits";
  if (op.endsWith("line") || /line@/.test(op)) return "lines";
  return op.split("@")[0]!;
}

const BELOW = /^(-1|-2|-step|-2step)$/;
const ABOVE = /^(\+1|\+2|\+step|\+2step)$/;

function isOverfitting(divergences: readonly Divergence[], options: ComparisonOptions): boolean {
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

function findingsOf(
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

// ------------------------------------------------------------------------------ second verdict channel

function verdictChannel(
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

function clustersOf(
  candidates: readonly Subject[],
  cases: readonly string[],
  signature: (s: Subject, caseKey: string) => string,
): string[][] {
  const groups = new Map<string, string[]>();
  for (const c of candidates) {
    const whole = cases.map((k) => signature(c, k)).join("\u0002");
    const group = groups.get(whole);
    if (group) group.push(c.id);
    else groups.set(whole, [c.id]);
  }
  return [...groups.values()]
    .map((g) => [...g].sort())
    .sort((a, b) => b.length - a.length || (a[0]! < b[0]! ? -1 : 1));
}

export { slotKey };
