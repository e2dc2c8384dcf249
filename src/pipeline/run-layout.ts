import { join } from "node:path";

/**
 * Where a run's files go under its output folder (`config.out`), in one place for the pipeline that
 * writes them and the report that points at them:
 *
 *   <out>/gagar.sqlite                                   the store of every run in <out>
 *   <out>/runs/<run-id>/config.json                      the resolved config
 *   <out>/runs/<run-id>/step-0003/batch.jsonl|.parquet   the step's training batch
 *   <out>/runs/<run-id>/step-0003/transcripts.jsonl      the step's trajectories
 *   <out>/runs/<run-id>/step-0003/tokens.jsonl           their token ids and logprobs, when the server gave them
 */
export const STORE_FILE = "gagar.sqlite";

export interface StepFiles {
  dir: string;
  batchJsonl: string;
  batchParquet: string;
  transcripts: string;
  tokens: string;
}

export function runDirOf(outDir: string, runId: string): string {
  return join(outDir, "runs", runId);
}

export function runConfigFile(runDir: string): string {
  return join(runDir, "config.json");
}

export function stepFilesOf(runDir: string, stepIdx: number): StepFiles {
  const dir = join(runDir, `step-${String(stepIdx).padStart(4, "0")}`);
  return {
    dir,
    batchJsonl: join(dir, "batch.jsonl"),
    batchParquet: join(dir, "batch.parquet"),
    transcripts: join(dir, "transcripts.jsonl"),
    tokens: join(dir, "tokens.jsonl"),
  };
}
