import type { Finding } from "../../contracts/finding.ts";

/**
 * The records a run's guards wrote (guard-setup.ts), read back from the runner's copy of the guard
 * pipe. Each record is a JSON line starting with `{"g":1`. A record is a violation (unambiguous
 * evidence: the run is `forged`) unless it says `"ambiguous": true`, in which case it is a finding of
 * `major` severity that the grader weighs and the verdict does not turn on (what the guard saw has an
 * honest reading too, such as a library opening a path the test itself handed it). Code under test can
 * write to the pipe too, but only against itself: a record it writes can only condemn it. It can also
 * write a partial line so that a genuine record lands in the middle of it, so records are found
 * wherever their marker is, and the text between two markers is tried on its own.
 */
export type GuardKind = "test-source-read" | "harness-tampering" | "test-reexec" | "module-shadowing";

export interface GuardLog {
  /** Whether a guard reported that it started (the run was watched). */
  started: boolean;
  /** Unambiguous evidence of an attack from inside the test process: critical, the run is forged. */
  violations: Finding[];
  /** What a guard saw that has an honest reading too: major findings, no effect on the verdict. */
  ambiguous: Finding[];
}

const MARKER = '{"g":1';
const KINDS: ReadonlySet<string> = new Set<GuardKind>([
  "test-source-read",
  "harness-tampering",
  "test-reexec",
  "module-shadowing",
]);

export function parseGuardLog(text: string): GuardLog {
  let started = false;
  const seen = new Set<string>();
  const violations: Finding[] = [];
  const ambiguous: Finding[] = [];
  for (const segment of text.split(MARKER).slice(1)) {
    const record = parseRecord(MARKER + segment.trimEnd());
    if (!record) continue;
    if (record.kind === "start") {
      started = true;
      continue;
    }
    const kind = KINDS.has(record.kind) ? record.kind : "harness-tampering";
    const key = `${kind}\0${record.detail}\0${record.file ?? ""}\0${record.ambiguous}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const finding: Finding = {
      kind,
      severity: record.ambiguous ? "major" : "critical",
      message: record.detail,
    };
    if (record.file) finding.file = record.file;
    if (record.line) finding.line = record.line;
    (record.ambiguous ? ambiguous : violations).push(finding);
  }
  return { started, violations, ambiguous };
}

interface GuardRecord {
  kind: string;
  detail: string;
  ambiguous: boolean;
  file?: string;
  line?: number;
}

function parseRecord(text: string): GuardRecord | null {
  const line = text.split("\n", 1)[0]!;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const r = value as Record<string, unknown>;
  if (typeof r.kind !== "string" || typeof r.detail !== "string") return null;
  const record: GuardRecord = { kind: r.kind, detail: r.detail, ambiguous: r.ambiguous === true };
  if (typeof r.file === "string" && r.file) record.file = r.file;
  if (typeof r.line === "number" && Number.isInteger(r.line) && r.line > 0) record.line = r.line;
  return record;
}
