export { BATCH_COLUMNS, BatchRow, checkBatchRows } from "./batch-row.ts";
export { batchRowsFromStore } from "./from-store.ts";
export { writeBatchJsonl } from "./write-jsonl.ts";
export { BATCH_PARQUET_COLUMNS, writeBatchParquet } from "./write-parquet.ts";
