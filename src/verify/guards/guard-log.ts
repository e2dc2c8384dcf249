import type { Finding } from "../../contracts/finding.ts";

/**
 * The records a run's guards wrote (guard-setup.ts), read back from the runner's copy of the guard
 * pipe. Each record is a JSON line starting with `{"g":1`. Code under test can write to the pipe too,
 * but only against itself: every record other than `start` is a violation. It can also write a partial
 * line so that a genuine record lands in the middle of it, so records are found wherever their marker
 * is, and the text between two markers is tried on its own.
 */
export type GuardKind = "test-source-read" | "harness-tampering" | "test-reexec" | "module-shadowing";

export interface GuardLog {
  /** Whether a guard reported that it started (the run was watched). */
  started: boolean;
  violations: Finding[];
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
  for (const segment of text.split(MARKER).slice(1)) {
    const record = parseRecord(MARKER + segment.trimEnd());
    if (!record) continue;
    if (record.kind === "start") {
      started = true;
      continue;
    }
    const kind = KINDS.has(record.kind) ? record.kind : "harness-tampering";
    const key = `${kind}\0${record.detail}\0${record.file ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const finding: Finding = { kind, severity: "critical", message: record.detail };
    if (record.file) finding.file = record.file;
    if (record.line) finding.line = record.line;
    violations.push(finding);
  }
  return { started, violations };
}

interface GuardRecord {
  kind: string;
  detail: string;
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
  const record: GuardRecord = { kind: r.kind, detail: r.detail };
  if (typeof r.file === "string" && r.file) record.file = r.file;
  if (typeof r.line === "number" && Number.isInteger(r.line) && r.line > 0) record.line = r.line;
  return record;
}
