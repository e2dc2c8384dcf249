import { randomBytes } from "node:crypto";
import type { Statement } from "better-sqlite3";
import { z } from "zod";
import { InvariantError } from "../errors.ts";
import { fromJson, type JsonObject, type StoreContext, toJson } from "./store-context.ts";

export interface RunRecord {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  /** The resolved configuration the run was started with. */
  config: JsonObject;
}

export type StepStatus = "running" | "done";

export interface StepRecord {
  id: number;
  runId: string;
  idx: number;
  status: StepStatus;
  startedAt: string;
  finishedAt: string | null;
  /** Set by `finishStep`; null while the step runs. */
  metrics: JsonObject | null;
}

export interface StepMetrics {
  idx: number;
  metrics: JsonObject;
}

/** Default run id: sortable by start time and readable in output paths, e.g. `run-20260102T030405Z-3fa2`. */
export function defaultRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  return `run-${stamp}-${randomBytes(2).toString("hex")}`;
}

const JsonObjectSchema = z.record(z.string(), z.unknown());

/** Configs and metrics are read back as keyed objects, so nothing else may be written. */
function checkObject(value: object, what: string): void {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new InvariantError(`${what} must be a JSON object`);
}

interface RunRow {
  id: string;
  created_at: string;
  config: string;
}

interface StepRow {
  id: number;
  run_id: string;
  idx: number;
  status: StepStatus;
  started_at: string;
  finished_at: string | null;
  metrics: string | null;
}

/** Runs and their steps. A step is `running` until `finish`; a running step found again is resumed. */
export class Runs {
  private readonly insertRun: Statement<[string, string, string]>;
  private readonly selectRun: Statement<[string], RunRow>;
  private readonly selectLatestRun: Statement<[], RunRow>;
  private readonly insertStep: Statement<[string, number, string], StepRow>;
  private readonly selectStep: Statement<[string, number], StepRow>;
  private readonly selectStepById: Statement<[number], StepRow>;
  private readonly updateFinished: Statement<[string, string, number]>;
  private readonly selectMetrics: Statement<[string], { idx: number; metrics: string }>;

  constructor(
    private readonly ctx: StoreContext,
    private readonly newRunId: (now: Date) => string = defaultRunId,
  ) {
    const { db } = ctx;
    this.insertRun = db.prepare("INSERT INTO runs (id, created_at, config) VALUES (?, ?, ?)");
    this.selectRun = db.prepare("SELECT id, created_at, config FROM runs WHERE id = ?");
    this.selectLatestRun = db.prepare(
      "SELECT id, created_at, config FROM runs ORDER BY created_at DESC, seq DESC LIMIT 1",
    );
    this.insertStep = db.prepare(
      "INSERT INTO steps (run_id, idx, status, started_at) VALUES (?, ?, 'running', ?) RETURNING *",
    );
    this.selectStep = db.prepare("SELECT * FROM steps WHERE run_id = ? AND idx = ?");
    this.selectStepById = db.prepare("SELECT * FROM steps WHERE id = ?");
    this.updateFinished = db.prepare(
      "UPDATE steps SET status = 'done', finished_at = ?, metrics = ? WHERE id = ? AND status = 'running'",
    );
    this.selectMetrics = db.prepare(
      "SELECT idx, metrics FROM steps WHERE run_id = ? AND status = 'done' ORDER BY idx",
    );
  }

  create(config: object): string {
    checkObject(config, "run config");
    const now = this.ctx.now();
    const id = this.newRunId(now);
    this.insertRun.run(id, now.toISOString(), toJson(config));
    return id;
  }

  get(id: string): RunRecord | undefined {
    const row = this.selectRun.get(id);
    return row && this.toRun(row);
  }

  /** The most recently created run (ties broken by insertion order). */
  latest(): RunRecord | undefined {
    const row = this.selectLatestRun.get();
    return row && this.toRun(row);
  }

  /**
   * Starts step `idx` of a run, or returns it unchanged if it is still `running` — a killed step
   * resumes where its records stop. Beginning a step that is already done is a pipeline bug.
   */
  beginStep(runId: string, idx: number): StepRecord {
    if (!Number.isInteger(idx) || idx < 0)
      throw new InvariantError(`step index must be an integer ≥ 0, got ${idx}`);
    const existing = this.selectStep.get(runId, idx);
    if (existing) {
      if (existing.status === "done")
        throw new InvariantError(`step ${idx} of run ${runId} is already done in ${this.ctx.file}`);
      return this.toStep(existing);
    }
    if (!this.selectRun.get(runId)) throw new InvariantError(`no run "${runId}" in ${this.ctx.file}`);
    return this.toStep(this.insertStep.get(runId, idx, this.ctx.now().toISOString())!);
  }

  /** Marks a running step done with its metrics; finishing twice is a pipeline bug. */
  finishStep(stepId: number, metrics: object): StepRecord {
    checkObject(metrics, "step metrics");
    const changed = this.updateFinished.run(this.ctx.now().toISOString(), toJson(metrics), stepId).changes;
    if (changed === 0) {
      const step = this.selectStepById.get(stepId);
      throw new InvariantError(
        step ? `step ${step.idx} of run ${step.run_id} is already done` : `no step with id ${stepId}`,
      );
    }
    return this.toStep(this.selectStepById.get(stepId)!);
  }

  getStep(runId: string, idx: number): StepRecord | undefined {
    const row = this.selectStep.get(runId, idx);
    return row && this.toStep(row);
  }

  getStepById(stepId: number): StepRecord | undefined {
    const row = this.selectStepById.get(stepId);
    return row && this.toStep(row);
  }

  /** Metrics of the run's finished steps, by step index. */
  metrics(runId: string): StepMetrics[] {
    return this.selectMetrics.all(runId).map(({ idx, metrics }) => ({
      idx,
      metrics: this.json(metrics, "steps.metrics", `run ${runId} step ${idx}`),
    }));
  }

  private toRun(row: RunRow): RunRecord {
    return {
      id: row.id,
      createdAt: row.created_at,
      config: this.json(row.config, "runs.config", `run ${row.id}`),
    };
  }

  private toStep(row: StepRow): StepRecord {
    return {
      id: row.id,
      runId: row.run_id,
      idx: row.idx,
      status: row.status,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      metrics:
        row.metrics === null
          ? null
          : this.json(row.metrics, "steps.metrics", `run ${row.run_id} step ${row.idx}`),
    };
  }

  private json(text: string, column: string, row: string): JsonObject {
    return fromJson(this.ctx, text, JsonObjectSchema, column, row);
  }
}
