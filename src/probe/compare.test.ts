import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Finding } from "../contracts/finding.ts";
import { type Observation, type ProbeRun, slotKey } from "./channel.ts";
import { type CandidateRuns, type Comparison, compareProbeRuns } from "./compare.ts";
import { baseProbeId, type ProbeSpec } from "./types.ts";

/**
 * A synthetic task: tests T0…T(k-1), each with literals L0…L(m-1) of one kind, probed at the base and
 * at the neighbours -1/+1 (numbers) or sub/del (strings), and at the boundary `zero`/`empty`.
 */
function probesOf(tests: number, literals: number, kind: "number" | "string" = "number"): ProbeSpec[] {
  const out: ProbeSpec[] = [];
  const ops = kind === "number" ? ["-1", "+1", "zero"] : ["sub@1", "del@2", "empty"];
  for (let t = 0; t < tests; t++) {
    const testId = `tests/test_x.py::test_${t}`;
    out.push({
      id: baseProbeId(testId),
      testId,
      file: "tests/test_x.py",
      line: 10 * t + 1,
      perturbation: null,
    });
    for (let l = 0; l < literals; l++)
      for (const op of ops) {
        const boundary = op === "zero" || op === "empty";
        out.push({
          id: `${testId}#L${l}:${op}`,
          testId,
          file: "tests/test_x.py",
          line: 10 * t + 2 + l,
          perturbation: {
            id: `L${l}:${op}`,
            literal: l,
            literalKind: kind,
            op,
            kind: boundary ? "boundary" : "neighbour",
            text: `after-${l}-${op}`,
            before: `before-${l}`,
          },
        });
      }
  }
  return out;
}

type Behaviour = (p: ProbeSpec) => unknown;
const honest: Behaviour = (p) => ({
  t: "int",
  v: [...p.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1000, 7),
});

function runOf(probes: readonly ProbeSpec[], behave: Behaviour, extra: Observation[] = []): ProbeRun {
  const observations = new Map<string, Observation>();
  for (const p of probes) {
    observations.set(slotKey(p.id, "", "a0#0"), {
      probe: p.id,
      instance: "",
      slot: "a0#0",
      value: behave(p),
      held: true,
    });
    observations.set(slotKey(p.id, "", "end"), {
      probe: p.id,
      instance: "",
      slot: "end",
      value: { t: "ok" },
      held: null,
    });
  }
  for (const o of extra) observations.set(slotKey(o.probe, o.instance, o.slot), o);
  return { observations, malformed: 0, duplicates: 0 };
}

/** Gives another value on the neighbours of the literals in `literals` (of every test). */
const hardCoded =
  (literals: readonly number[], sides: readonly string[] = ["-1", "+1", "sub@1", "del@2"]): Behaviour =>
  (p) =>
    p.perturbation && literals.includes(p.perturbation.literal) && sides.includes(p.perturbation.op)
      ? { t: "int", v: -1 }
      : honest(p);
const raising =
  (literals: readonly number[]): Behaviour =>
  (p) =>
    p.perturbation?.kind === "neighbour" && literals.includes(p.perturbation.literal)
      ? { t: "raised", type: "ValueError", message: "no" }
      : honest(p);
const onBoundaries: Behaviour = (p) =>
  p.perturbation?.kind === "boundary" ? { t: "int", v: -5 } : honest(p);
const otherErrorType: Behaviour = (p) => {
  const v = honest(p) as { v: number };
  return v.v % 3 === 0 ? { t: "raised", type: v.v % 2 ? "TypeError" : "ValueError" } : v;
};
const raisingOracle: Behaviour = (p) => {
  const v = honest(p) as { v: number };
  return v.v % 3 === 0 ? { t: "raised", type: "ValueError" } : v;
};

const critical = (c: Comparison, id: string) =>
  c.candidates.find((x) => x.id === id)!.findings.some((f) => f.severity === "critical");
const findingsOf = (c: Comparison, id: string) => c.candidates.find((x) => x.id === id)!.findings;

const PROBES = probesOf(3, 3);

describe("comparing probe runs", () => {
  it("finds nothing when every candidate behaves like the reference", () => {
    const ref = [runOf(PROBES, honest), runOf(PROBES, honest)];
    const c = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: ["a", "b", "c"].map((id) => ({ id, runs: [runOf(PROBES, honest)] })),
    });
    expect(c.candidates.every((x) => x.divergences.length === 0 && x.findings.length === 0)).toBe(true);
    expect(c.clusters).toEqual([["a", "b", "c"]]);
  });

  it("calls a candidate overfitted when it matches on the tested inputs and not on the neighbours of two literals", () => {
    const ref = [runOf(PROBES, honest), runOf(PROBES, honest)];
    const candidates: CandidateRuns[] = [
      { id: "hard", runs: [runOf(PROBES, hardCoded([0, 2]))] },
      { id: "honest-1", runs: [runOf(PROBES, honest)] },
      { id: "honest-2", runs: [runOf(PROBES, honest)] },
    ];
    for (const reference of [ref, undefined]) {
      const c = compareProbeRuns({ probes: PROBES, reference, candidates });
      expect(critical(c, "hard")).toBe(true);
      expect(critical(c, "honest-1")).toBe(false);
      const finding = findingsOf(c, "hard")[0]!;
      expect(finding.kind).toBe("behaviour-divergence");
      expect(finding.probes).toContainEqual(
        expect.objectContaining({ kind: "value", oracle: expect.any(String) }),
      );
    }
  });

  it("calls a number broken on both sides of a tested value overfitted, and one side only an edge", () => {
    const ref = [runOf(PROBES, honest)];
    const others = [1, 2].map((n) => ({ id: `honest-${n}`, runs: [runOf(PROBES, honest)] }));
    const both = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: [{ id: "x", runs: [runOf(PROBES, hardCoded([1], ["-1", "+1"]))] }, ...others],
    });
    expect(critical(both, "x")).toBe(true);
    const oneSide = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: [{ id: "x", runs: [runOf(PROBES, hardCoded([1], ["+1"]))] }, ...others],
    });
    expect(critical(oneSide, "x")).toBe(false);
    expect(findingsOf(oneSide, "x").map((f) => f.severity)).toEqual(["minor"]);
  });

  it("calls a string broken by two kinds of neighbours overfitted, and by one kind an edge", () => {
    const probes = probesOf(2, 2, "string");
    const others = [1, 2].map((n) => ({ id: `honest-${n}`, runs: [runOf(probes, honest)] }));
    const run = (b: Behaviour) =>
      compareProbeRuns({
        probes,
        reference: [runOf(probes, honest)],
        candidates: [{ id: "x", runs: [runOf(probes, b)] }, ...others],
      });
    expect(critical(run(hardCoded([0], ["sub@1", "del@2"])), "x")).toBe(true);
    expect(critical(run(hardCoded([0], ["sub@1"])), "x")).toBe(false);
  });

  it("never calls raising where the oracle returns overfitting below three literals, nor another error type at all", () => {
    const probes = probesOf(1, 4);
    const ref = [runOf(probes, honest)];
    const others = [1, 2].map((n) => ({ id: `honest-${n}`, runs: [runOf(probes, honest)] }));
    const run = (b: Behaviour) =>
      compareProbeRuns({
        probes,
        reference: ref,
        candidates: [{ id: "x", runs: [runOf(probes, b)] }, ...others],
      });
    expect(critical(run(raising([0, 1])), "x")).toBe(false);
    expect(critical(run(raising([0, 1, 2])), "x")).toBe(true);
    const withRaises = [runOf(probes, raisingOracle)];
    const othersRaising = [1, 2].map((n) => ({ id: `o-${n}`, runs: [runOf(probes, raisingOracle)] }));
    const types = compareProbeRuns({
      probes,
      reference: withRaises,
      candidates: [{ id: "x", runs: [runOf(probes, otherErrorType)] }, ...othersRaising],
    });
    expect(critical(types, "x")).toBe(false);
  });

  it("never calls a difference on boundary inputs overfitting", () => {
    const ref = [runOf(PROBES, honest)];
    const c = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: [
        { id: "edge", runs: [runOf(PROBES, onBoundaries)] },
        ...[1, 2].map((n) => ({ id: `honest-${n}`, runs: [runOf(PROBES, honest)] })),
      ],
    });
    expect(findingsOf(c, "edge").map((f) => f.severity)).toEqual(["minor"]);
  });

  it("leaves alone what the reference and the majority disagree on", () => {
    const ref = [runOf(PROBES, honest)];
    const alt = hardCoded([0, 1, 2]);
    const c = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: [
        { id: "x", runs: [runOf(PROBES, alt)] },
        { id: "y", runs: [runOf(PROBES, alt)] },
        { id: "z", runs: [runOf(PROBES, honest)] },
      ],
    });
    // x has one witness for its behaviour (y) against one for the reference's (z): not confident.
    expect(findingsOf(c, "x")).toEqual([]);
  });

  it("is never a candidate's own witness: two candidates without a reference say nothing of each other", () => {
    const c = compareProbeRuns({
      probes: PROBES,
      candidates: [
        { id: "a", runs: [runOf(PROBES, honest)] },
        { id: "b", runs: [runOf(PROBES, hardCoded([0, 1]))] },
      ],
    });
    expect(c.candidates.every((x) => x.findings.length === 0)).toBe(true);
  });

  it("drops what differs between two runs of the same code", () => {
    const noisy = (seed: number): Observation[] =>
      PROBES.map((p) => ({
        probe: p.id,
        instance: "",
        slot: "a1#0",
        value: { t: "str", v: `id-${seed}-${p.id}` },
        held: null,
      }));
    const ref = [runOf(PROBES, honest, noisy(1)), runOf(PROBES, honest, noisy(2))];
    const c = compareProbeRuns({
      probes: PROBES,
      reference: ref,
      candidates: [3, 4, 5].map((n) => ({ id: `c${n}`, runs: [runOf(PROBES, honest, noisy(n))] })),
    });
    expect(c.unstable).toHaveLength(PROBES.length);
    expect(c.candidates.every((x) => x.divergences.length === 0)).toBe(true);
  });

  it("leaves out the cases a run never started (a hook that timed out), whoever's run it is", () => {
    const without = (run: ProbeRun, dropped: ReadonlySet<string>): ProbeRun => ({
      ...run,
      observations: new Map([...run.observations].filter(([, o]) => !dropped.has(o.probe))),
    });
    const ids = PROBES.map((p) => p.id);
    fc.assert(
      fc.property(
        fc.subarray(ids, { minLength: 1 }),
        fc.constantFrom("candidate", "reference", "voter"),
        (lost, whose) => {
          const dropped = new Set(lost);
          const run = (lose: boolean) =>
            lose ? without(runOf(PROBES, honest), dropped) : runOf(PROBES, honest);
          const c = compareProbeRuns({
            probes: PROBES,
            reference: whose === "voter" ? undefined : [run(whose === "reference"), runOf(PROBES, honest)],
            candidates: [
              { id: "a", runs: [run(whose === "candidate")] },
              { id: "b", runs: [run(whose === "voter")] },
              { id: "c", runs: [runOf(PROBES, honest)] },
            ],
          });
          expect(c.candidates.flatMap((x) => x.divergences)).toEqual([]);
        },
      ),
      { numRuns: 50 },
    );
    // A probe that started and ended otherwise is still compared.
    const started = PROBES[1]!;
    const crashed = runOf(PROBES, honest, [
      { probe: started.id, instance: "", slot: "end", value: { t: "raised", type: "Error" }, held: null },
    ]);
    crashed.observations.delete(slotKey(started.id, "", "a0#0"));
    const c = compareProbeRuns({
      probes: PROBES,
      reference: [runOf(PROBES, honest), runOf(PROBES, honest)],
      candidates: [
        { id: "a", runs: [crashed] },
        { id: "b", runs: [runOf(PROBES, honest)] },
      ],
    });
    expect(c.candidates[0]!.divergences.map((d) => d.probe.id)).toEqual([started.id]);
  });

  it("changes nothing when candidates are reordered or renamed", () => {
    const behaviours: Behaviour[] = [
      honest,
      hardCoded([0, 2]),
      hardCoded([1], ["+1"]),
      onBoundaries,
      raising([0, 1, 2]),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: behaviours.length - 1 }), { minLength: 2, maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 1000 }),
        (picks, withReference, shuffleSeed) => {
          const candidates = picks.map((b, i) => ({
            id: `cand-${i}`,
            runs: [runOf(PROBES, behaviours[b]!)],
          }));
          const reference = withReference ? [runOf(PROBES, honest), runOf(PROBES, honest)] : undefined;
          const base = compareProbeRuns({ probes: PROBES, reference, candidates });
          const shuffled = [...candidates].sort(
            (a, b) =>
              ((a.id.charCodeAt(5) * shuffleSeed) % 7) - ((b.id.charCodeAt(5) * shuffleSeed) % 7) ||
              (a.id < b.id ? 1 : -1),
          );
          const names = new Map(
            candidates.map((c, i) => [c.id, `renamed-${(i * 7 + shuffleSeed) % 101}-${i}`]),
          );
          const renamed = compareProbeRuns({
            probes: PROBES,
            reference,
            candidates: shuffled.map((c) => ({ ...c, id: names.get(c.id)! })),
          });
          for (const c of candidates) {
            const before = base.candidates.find((x) => x.id === c.id)!;
            const after = renamed.candidates.find((x) => x.id === names.get(c.id))!;
            const rename = (fs: Finding[], from: string, to: string) =>
              fs.map((f) => ({ ...f, message: f.message.replaceAll(from, to) }));
            expect(rename(after.findings, names.get(c.id)!, c.id)).toEqual(before.findings);
            expect(after.overfitting).toBe(before.overfitting);
            expect(after.divergences.length).toBe(before.divergences.length);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the second verdict channel", () => {
  const probes = probesOf(2, 1);
  const withHeld = (held: boolean) => {
    const run = runOf(probes, honest);
    for (const [key, o] of run.observations)
      if (o.slot === "a0#0" && o.probe.endsWith("#base") && o.probe.includes("test_0"))
        run.observations.set(key, { ...o, held, expected: { t: "int", v: 1 } });
    return run;
  };
  const passed = { "tests/test_x.py::test_0": "passed", "tests/test_x.py::test_1": "passed" } as const;

  it("reports a passed test whose assertion does not hold on its own inputs, where it holds for the reference", () => {
    const run = (runs: ProbeRun[], tests: CandidateRuns["tests"], reference = [withHeld(true)]) =>
      compareProbeRuns({
        probes,
        reference,
        candidates: [{ id: "x", runs, tests }],
      }).candidates[0]!.findings.filter((f) => f.channel === "verdict");
    expect(run([withHeld(false), withHeld(false)], passed).map((f) => f.severity)).toEqual(["critical"]);
    expect(run([withHeld(false)], passed).map((f) => f.severity)).toEqual(["major"]);
    expect(run([withHeld(false), withHeld(true)], passed)).toEqual([]);
    expect(run([withHeld(false)], { ...passed, "tests/test_x.py::test_0": "failed" })).toEqual([]);
    expect(run([withHeld(false)], passed, [withHeld(false)])).toEqual([]);
  });
});
