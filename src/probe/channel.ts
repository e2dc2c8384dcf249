/**
 * The observations a probe run wrote (the helpers in python/ and js/), read back from the channel's
 * text (pure). Each record is one JSON line with `"gp":1`:
 *
 *   {"gp":1,"p":PROBE,"i":INSTANCE,"k":KEY,"n":N,"v":VALUE,"h":HELD[,"e":EXPECTED]}   an observation
 *   {"gp":1,"p":PROBE,"i":INSTANCE,"end":{"t":"ok"} | {"t":"raised",…}}              how the test ended
 *
 * PROBE is the probe id (plan.ts), INSTANCE tells the runs of one probe apart (pytest's parameter id,
 * or the how-many-th start of a JavaScript `.each` test), KEY the assertion (`a<n>`, `h<n>` in helpers)
 * and N its how-many-th observation in that run. VALUE and EXPECTED are tagged values (docs/probes.md);
 * HELD says whether the assertion as written would have held (null: the probe cannot tell).
 *
 * Code under test runs in the same process and could write here too, but only against itself: a
 * record can change only the writing candidate's own observations. Lines that are not records are
 * counted, not trusted; a slot written twice keeps its first record.
 */
export interface Observation {
  probe: string;
  instance: string;
  /** The assertion key and occurrence (`a2#0`), or `end`. */
  slot: string;
  value: unknown;
  expected?: unknown;
  held: boolean | null;
}

export interface ProbeRun {
  /** By `slotKey(probe, instance, slot)`. */
  observations: Map<string, Observation>;
  /** Lines that were not well-formed records, and slots written more than once. */
  malformed: number;
  duplicates: number;
}

export function slotKey(probe: string, instance: string, slot: string): string {
  return `${probe}\u0000${instance}\u0000${slot}`;
}

export function readProbeChannel(text: string): ProbeRun {
  const run: ProbeRun = { observations: new Map(), malformed: 0, duplicates: 0 };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const observation = parseRecord(line);
    if (!observation) {
      run.malformed++;
      continue;
    }
    const key = slotKey(observation.probe, observation.instance, observation.slot);
    if (run.observations.has(key)) {
      run.duplicates++;
      continue;
    }
    run.observations.set(key, observation);
  }
  return run;
}

function parseRecord(line: string): Observation | null {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof r !== "object" || r === null) return null;
  const o = r as Record<string, unknown>;
  if (o.gp !== 1 || typeof o.p !== "string" || typeof o.i !== "string") return null;
  if ("end" in o) {
    if (typeof o.end !== "object" || o.end === null) return null;
    return { probe: o.p, instance: o.i, slot: "end", value: o.end, held: null };
  }
  if (typeof o.k !== "string" || !Number.isInteger(o.n) || !("v" in o)) return null;
  const held = o.h === true || o.h === false ? o.h : null;
  const observation: Observation = { probe: o.p, instance: o.i, slot: `${o.k}#${o.n}`, value: o.v, held };
  if ("e" in o) observation.expected = o.e;
  return observation;
}
