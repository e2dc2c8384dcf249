import type { AdvantageRow } from "../contracts/advantage-row.ts";
import type { Finding } from "../contracts/finding.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { VerdictReason } from "../contracts/verdict.ts";
import type { StepMetrics } from "../metrics/step-metrics.ts";

/** Everything a run report shows, read from the store once (load-run.ts); plain data, no handles. */
export interface RunData {
  storeFile: string;
  runId: string;
  createdAt: string;
  /** The resolved configuration the run was started with. */
  config: Record<string, unknown>;
  /** Where the run's files are, and whether each is there. */
  files: { runDir: string; config: OutputFile };
  steps: StepData[];
}

export interface OutputFile {
  path: string;
  exists: boolean;
}

export interface StepData {
  idx: number;
  status: "running" | "done";
  startedAt: string;
  finishedAt: string | null;
  /** Null while the step runs (metrics are written when it finishes). */
  metrics: StepMetrics | null;
  files: { batchJsonl: OutputFile; batchParquet: OutputFile; transcripts: OutputFile };
  groups: GroupData[];
}

export interface GroupData {
  id: string;
  taskId: string;
  round: number;
  /** Null until the dynamic-sampling filter decided (a step that is still running). */
  kept: boolean | null;
  dropReason: string | null;
  /** The ranking the step used; absent for groups with fewer than two passes or never graded. */
  ranking?: Ranking;
  candidates: CandidateData[];
}

export interface CandidateData {
  id: string;
  patch: string;
  patchSha256: string;
  tokens?: number;
  turns?: number;
  /** Absent only while the step is still verifying. */
  verdict?: { passed: boolean; reason: VerdictReason; detail?: string };
  /** Present for candidates of kept groups once the step computed advantages. */
  advantage?: AdvantageRow;
  /** The grader's findings, the verifier's (stripped test edits, forged reports…) and the behavioural probes'. */
  findings: (Finding & { source: "grader" | "verifier" | "probes" })[];
}

/**
 * A pass the veto turned into a failure (advantage.veto): its advantages were computed with a
 * failure's reward (VETOED_REWARD, 0), which a pass gets no other way.
 */
export function isVetoed(c: CandidateData): boolean {
  return c.verdict?.passed === true && c.advantage !== undefined && c.advantage.reward === 0;
}
