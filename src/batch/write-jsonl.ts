import { toJsonlLine } from "../io/jsonl.ts";
import { type BatchRow, checkBatchRows } from "./batch-row.ts";
import { writeFileAtomically } from "./write-file-atomically.ts";

/**
 * Writes the batch as JSONL, one trajectory per line, keys in `BATCH_COLUMNS` order. All rows are
 * validated first and the file appears whole or not at all, so a trainer polling for it never
 * reads half a batch. (A batch is built in memory anyway, so it is written in one piece.)
 */
export async function writeBatchJsonl(path: string, rows: readonly BatchRow[]): Promise<void> {
  const text = checkBatchRows(rows).map(toJsonlLine).join("");
  writeFileAtomically(path, Buffer.from(text, "utf8"));
}
