import type { AdvantageRow } from "../contracts/advantage-row.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { Verdict } from "../contracts/verdict.ts";
import type { CandidateInput, GroupInput, StoredGroup } from "./groups.ts";
import type { RunRecord, StepMetrics, StepRecord } from "./runs.ts";
import { openSqliteStore, type SqliteStoreOptions } from "./sqlite-run-store.ts";
import type { TaskOutcome, TaskStats } from "./task-stats.ts";

/** What every store implementation accepts. */
export interface StoreOptions {
  /** Clock for every timestamp the store writes; injectable so records are deterministic in tests. */
  now?: () => Date;
  /** Run id generator; defaults to `run-<UTC timestamp>-<4 hex>`. */
  newRunId?: (now: Date) => string;
}

/**
 * Everything an RL step records: runs with their resolved config, steps and their metrics, groups
 * and candidates, content-keyed verdicts, rankings, advantages, and the per-task pass history that
 * task selection learns from. The CLI pipeline, the HTTP service and reports use only this
 * interface; `contract.test-suite.ts` states its behaviour and runs against every implementation.
 *
 * Every multi-row write is atomic, so a killed step leaves whole records and resumes from them:
 * - `beginStep` returns a step that is still running instead of starting over;
 * - `getStepGroups` gives the groups already generated, with `kept` null until filtered;
 * - `findVerdict`/`findRanking` return work already done, keyed by content and grader; saving
 *   either a second time keeps the first (results are stored once).
 *
 * Synchronous: calls are short and a step's slow work (sandboxes, models) is elsewhere.
 * Misuse by the pipeline (a group saved twice, advantages that miss a candidate, finishing a step
 * twice) throws InvariantError; a damaged record read back throws InputError naming the store.
 */
export interface RunStore {
  /** Where the store lives, for messages (a file path, ":memory:"). */
  readonly file: string;

  /** Records a new run with its resolved config (a JSON object); returns the run id. */
  createRun(config: object): string;
  getRun(id: string): RunRecord | undefined;
  /** The most recently created run (ties broken by creation order). */
  latestRun(): RunRecord | undefined;

  /** Starts step `idx`, or returns it if it is still running (a killed step resumes). */
  beginStep(runId: string, idx: number): StepRecord;
  /** Marks a running step done with its metrics (a JSON object). */
  finishStep(stepId: number, metrics: object): StepRecord;
  getStep(runId: string, idx: number): StepRecord | undefined;
  /** Metrics of the run's finished steps, by index. */
  stepMetrics(runId: string): StepMetrics[];

  /** Saves a generated group with its candidates; a group id is never reused. */
  saveGroup(stepId: number, group: GroupInput, candidates: readonly CandidateInput[]): StoredGroup;
  /** The step's groups in the order they were saved, candidates in the order given. */
  getStepGroups(stepId: number): StoredGroup[];
  /** Records the dynamic-sampling decision; a kept group has no drop reason. */
  markGroup(groupId: string, kept: boolean, dropReason?: string): void;

  findVerdict(taskId: string, patchSha: string): Verdict | undefined;
  /** Stores the verdict for (task, patch) unless one exists; returns whether it was new. */
  saveVerdict(taskId: string, patchSha: string, verdict: Verdict): boolean;
  countVerdicts(): number;

  findRanking(groupId: string, graderKey: string): Ranking | undefined;
  /** Stores the grader's ranking of a group unless one exists; returns whether it was new. */
  saveRanking(groupId: string, graderKey: string, ranking: Ranking): boolean;
  /** Every ranking of the group, oldest first (the newest is the one the step used). */
  groupRankings(groupId: string): Ranking[];

  /** Replaces the advantages of the groups present in `rows` (idempotent). */
  saveAdvantages(stepId: number, rows: readonly AdvantageRow[]): void;
  /** The step's rows, ordered like `getStepGroups`. */
  stepAdvantages(stepId: number): AdvantageRow[];

  /** Adds one group's outcome to the task's history (not idempotent: pair it with markGroup). */
  recordTaskOutcome(taskId: string, outcome: TaskOutcome, stepIdx: number): void;
  taskStats(): Map<string, TaskStats>;

  /**
   * Runs `fn` atomically (nested calls nest): its writes land if it returns, none of them if it
   * throws. For writes that must land together, like `markGroup` + `recordTaskOutcome`.
   */
  transaction<T>(fn: () => T): T;
  close(): void;
}

/**
 * Opens the run store at `path`: an SQLite file (created and migrated if needed; ":memory:" for a
 * throwaway one), today's only implementation. Fails with an InputError naming the file if it is
 * not a gagar store or is from a newer gagar.
 */
export function openStore(path: string, options: SqliteStoreOptions = {}): RunStore {
  return openSqliteStore(path, options);
}
