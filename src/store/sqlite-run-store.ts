import type { Database } from "better-sqlite3";
import type { AdvantageRow } from "../contracts/advantage-row.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { Advantages } from "./advantages.ts";
import { type CandidateInput, type GroupInput, Groups, type StoredGroup } from "./groups.ts";
import { type OpenDatabaseOptions, openDatabase } from "./open-database.ts";
import { Rankings } from "./rankings.ts";
import type { RunStore, StoreOptions } from "./run-store.ts";
import { type RunRecord, Runs, type StepMetrics, type StepRecord } from "./runs.ts";
import type { StoreContext } from "./store-context.ts";
import { type TaskOutcome, type TaskStats, TaskStatsTable } from "./task-stats.ts";
import { Verdicts } from "./verdicts.ts";

/** Options of the SQLite store: the shared ones plus how the file is opened. */
export interface SqliteStoreOptions
  extends StoreOptions,
    Pick<OpenDatabaseOptions, "readonly" | "busyTimeoutMs"> {}

/**
 * The run store in one SQLite file (created and migrated if needed; ":memory:" for a throwaway one).
 * Fails with an InputError naming the file if it is not a gagar store or is from a newer gagar.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteRunStore {
  const db = openDatabase(path, options);
  return new SqliteRunStore({ db, file: path, now: options.now ?? (() => new Date()) }, options.newRunId);
}

/**
 * RunStore on SQLite (better-sqlite3), the default: one table module per record kind, every
 * multi-row write one transaction, WAL so that readers in other processes (reports, dashboards) read
 * while a step writes. Synchronous: calls are short and the pipeline's slow work is elsewhere.
 */
export class SqliteRunStore implements RunStore {
  readonly file: string;
  private readonly db: Database;
  private readonly runs: Runs;
  private readonly groups: Groups;
  private readonly verdicts: Verdicts;
  private readonly rankings: Rankings;
  private readonly advantages: Advantages;
  private readonly tasks: TaskStatsTable;

  constructor(ctx: StoreContext, newRunId?: (now: Date) => string) {
    this.file = ctx.file;
    this.db = ctx.db;
    this.runs = new Runs(ctx, newRunId);
    this.groups = new Groups(ctx);
    this.verdicts = new Verdicts(ctx);
    this.rankings = new Rankings(ctx);
    this.advantages = new Advantages(ctx);
    this.tasks = new TaskStatsTable(ctx);
  }

  /** Records a new run with its resolved config; returns the run id. */
  createRun(config: object): string {
    return this.runs.create(config);
  }

  getRun(id: string): RunRecord | undefined {
    return this.runs.get(id);
  }

  latestRun(): RunRecord | undefined {
    return this.runs.latest();
  }

  /** Starts step `idx`, or returns it if it is still running (a killed step resumes). */
  beginStep(runId: string, idx: number): StepRecord {
    return this.runs.beginStep(runId, idx);
  }

  finishStep(stepId: number, metrics: object): StepRecord {
    return this.runs.finishStep(stepId, metrics);
  }

  getStep(runId: string, idx: number): StepRecord | undefined {
    return this.runs.getStep(runId, idx);
  }

  /** Metrics of the run's finished steps, by index. */
  stepMetrics(runId: string): StepMetrics[] {
    return this.runs.metrics(runId);
  }

  saveGroup(stepId: number, group: GroupInput, candidates: readonly CandidateInput[]): StoredGroup {
    return this.groups.save(stepId, group, candidates);
  }

  getStepGroups(stepId: number): StoredGroup[] {
    return this.groups.forStep(stepId);
  }

  markGroup(groupId: string, kept: boolean, dropReason?: string): void {
    this.groups.mark(groupId, kept, dropReason);
  }

  findVerdict(taskId: string, patchSha: string): Verdict | undefined {
    return this.verdicts.find(taskId, patchSha);
  }

  /** Stores the verdict for (task, patch) unless one exists; returns whether it was new. */
  saveVerdict(taskId: string, patchSha: string, verdict: Verdict): boolean {
    return this.verdicts.save(taskId, patchSha, verdict);
  }

  countVerdicts(): number {
    return this.verdicts.size();
  }

  findRanking(groupId: string, graderKey: string): Ranking | undefined {
    return this.rankings.find(groupId, graderKey);
  }

  /** Stores the grader's ranking of a group unless one exists; returns whether it was new. */
  saveRanking(groupId: string, graderKey: string, ranking: Ranking): boolean {
    return this.rankings.save(groupId, graderKey, ranking);
  }

  groupRankings(groupId: string): Ranking[] {
    return this.rankings.forGroup(groupId);
  }

  /** Replaces the advantages of the groups present in `rows` (idempotent). */
  saveAdvantages(stepId: number, rows: readonly AdvantageRow[]): void {
    this.advantages.save(stepId, rows);
  }

  stepAdvantages(stepId: number): AdvantageRow[] {
    return this.advantages.forStep(stepId);
  }

  /** Adds one group's outcome to the task's history (not idempotent: see TaskStatsTable). */
  recordTaskOutcome(taskId: string, outcome: TaskOutcome, stepIdx: number): void {
    this.tasks.record(taskId, outcome, stepIdx);
  }

  taskStats(): Map<string, TaskStats> {
    return this.tasks.all();
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints): commits if it returns, rolls
   * back if it throws. For writes that must land together, like `markGroup` + `recordTaskOutcome`.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
