import type { BasicType, ColumnSource } from "hyparquet-writer";
import { parquetWriteBuffer } from "hyparquet-writer";
import { SCHEMA_VERSION } from "../contracts/group.ts";
import { BATCH_COLUMNS, type BatchRow, checkBatchRows } from "./batch-row.ts";
import { writeFileAtomically } from "./write-file-atomically.ts";

interface ColumnSpec {
  type: BasicType;
  nullable: boolean;
  /** INT64 columns are written from bigint so no value passes through a float. */
  bigint?: true;
}

/**
 * Parquet types per column: UTF-8 strings, booleans, float64 for rewards and advantages, int32
 * for small counts, int64 for token counts (numpy's and torch's default integer, so sums over a
 * batch need no cast). Only `tier`, `finishReason`, `messagesRef` and `tokensRef` may be null.
 */
export const BATCH_PARQUET_COLUMNS: Record<keyof BatchRow, ColumnSpec> = {
  runId: { type: "STRING", nullable: false },
  step: { type: "INT32", nullable: false },
  taskId: { type: "STRING", nullable: false },
  groupId: { type: "STRING", nullable: false },
  candidateId: { type: "STRING", nullable: false },
  passed: { type: "BOOLEAN", nullable: false },
  reward: { type: "DOUBLE", nullable: false },
  baseAdvantage: { type: "DOUBLE", nullable: false },
  advantage: { type: "DOUBLE", nullable: false },
  weight: { type: "DOUBLE", nullable: false },
  tier: { type: "INT32", nullable: true },
  tokens: { type: "INT64", nullable: false, bigint: true },
  turns: { type: "INT32", nullable: false },
  finishReason: { type: "STRING", nullable: true },
  messagesRef: { type: "STRING", nullable: true },
  tokensRef: { type: "STRING", nullable: true },
  patchSha256: { type: "STRING", nullable: false },
};

/**
 * Writes the batch as one Parquet file (Snappy, columns in `BATCH_COLUMNS` order, key-value
 * metadata `gagar.schemaVersion` and `gagar.record = batch-row`). Validated first; appears whole
 * or not at all. An empty batch gives a valid file with the schema and zero rows.
 */
export async function writeBatchParquet(path: string, rows: readonly BatchRow[]): Promise<void> {
  const checked = checkBatchRows(rows);
  const columnData: ColumnSource[] = BATCH_COLUMNS.map((name) => {
    const { type, nullable, bigint } = BATCH_PARQUET_COLUMNS[name];
    const values = checked.map((row) => row[name]);
    return { name, type, nullable, data: bigint ? values.map((v) => BigInt(v as number)) : values };
  });
  const buffer = parquetWriteBuffer({
    columnData,
    kvMetadata: [
      { key: "gagar.schemaVersion", value: String(SCHEMA_VERSION) },
      { key: "gagar.record", value: "batch-row" },
    ],
    createdBy: "gagar",
  });
  writeFileAtomically(path, new Uint8Array(buffer));
}
