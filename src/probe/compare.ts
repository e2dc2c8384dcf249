import type { Finding } from "../contracts/finding.ts";
import type { TestStatus } from "../contracts/verdict.ts";
import type { ProbeRun } from "./channel.ts";
import { findingsOf, isOverfitting } from "./divergence-findings.ts";
import type { ProbeSpec } from "./types.ts";
import { canonicalKey, isRaised, stableJson } from "./values.ts";
import { verdictChannel } from "./verdict-channel.ts";

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
 * **Not started.** A case (probe, instance) of which a subject's run holds no record at all — not
 * even its end — never ran there: a suite's hook failed or timed out on a loaded machine (node-fetch's
 * abort tests), the runner skipped it. That says nothing about the subject's behaviour on it, so the
 * case is left out for that subject: not compared when it is the candidate's, no oracle when it is the
 * reference's, no vote when it is another candidate's. (A probe that started and stopped short still
 * shows: its end or its missing later observations differ.)
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

/** A candidate (or the reference) with its probe runs. */
export interface Subject {
  id: string;
  runs: readonly ProbeRun[];
  /** slot key → canonical value, from the first run. */
  canonical: Map<string, string>;
  /** Cases (probe, instance) of which the first run holds a record: the ones that ran. */
  started: Set<string>;
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
      if (!c.started.has(caseKey) || (reference && !reference.started.has(caseKey))) continue;
      const mine = signature(c, caseKey);
      const voters = others.filter((o) => o.started.has(caseKey));
      const oracle = oracleOf(caseKey, reference, voters, signature, options.quorum);
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
  const started = new Set<string>();
  const first = runs[0];
  if (first)
    for (const [key, o] of first.observations) {
      canonical.set(key, canonicalKey(o.value));
      started.add(`${o.probe}\u0000${o.instance}`);
    }
  return { id, runs, canonical, started };
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
