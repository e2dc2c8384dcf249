import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// hyparquet is hyparquet-writer's own dependency: an independent reader implementation to check against.
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { BATCH_COLUMNS } from "./batch-row.ts";
import { sampleRows } from "./testing/rows.ts";
import { writeBatchParquet } from "./write-parquet.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gagar-batch-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(path: string): ArrayBuffer {
  const bytes = readFileSync(path);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

describe("writeBatchParquet", () => {
  it("writes a Parquet file: magic bytes at both ends, row count in the footer", async () => {
    const path = join(dir, "batch.parquet");
    await writeBatchParquet(path, sampleRows());
    const bytes = readFileSync(path);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("PAR1");
    expect(bytes.subarray(-4).toString("latin1")).toBe("PAR1");
    const footerLength = bytes.readUInt32LE(bytes.length - 8);
    expect(footerLength).toBeGreaterThan(0);
    expect(footerLength).toBeLessThan(bytes.length - 12);
    const metadata = parquetMetadata(load(path));
    expect(Number(metadata.num_rows)).toBe(3);
    expect(metadata.created_by).toBe("gagar");
    expect(metadata.key_value_metadata).toEqual([
      { key: "gagar.schemaVersion", value: "1" },
      { key: "gagar.record", value: "batch-row" },
    ]);
  });

  it("declares proper column types, nullable only for tier, finishReason and the references", async () => {
    const path = join(dir, "batch.parquet");
    await writeBatchParquet(path, sampleRows());
    const [root, ...columns] = parquetMetadata(load(path)).schema;
    expect(root!.num_children).toBe(BATCH_COLUMNS.length);
    const described = columns.map((c) => [c.name, c.type, c.converted_type ?? "-", c.repetition_type]);
    expect(described).toEqual([
      ["runId", "BYTE_ARRAY", "UTF8", "REQUIRED"],
      ["step", "INT32", "-", "REQUIRED"],
      ["taskId", "BYTE_ARRAY", "UTF8", "REQUIRED"],
      ["groupId", "BYTE_ARRAY", "UTF8", "REQUIRED"],
      ["candidateId", "BYTE_ARRAY", "UTF8", "REQUIRED"],
      ["passed", "BOOLEAN", "-", "REQUIRED"],
      ["reward", "DOUBLE", "-", "REQUIRED"],
      ["baseAdvantage", "DOUBLE", "-", "REQUIRED"],
      ["advantage", "DOUBLE", "-", "REQUIRED"],
      ["weight", "DOUBLE", "-", "REQUIRED"],
      ["tier", "INT32", "-", "OPTIONAL"],
      ["tokens", "INT64", "-", "REQUIRED"],
      ["turns", "INT32", "-", "REQUIRED"],
      ["finishReason", "BYTE_ARRAY", "UTF8", "OPTIONAL"],
      ["messagesRef", "BYTE_ARRAY", "UTF8", "OPTIONAL"],
      ["tokensRef", "BYTE_ARRAY", "UTF8", "OPTIONAL"],
      ["patchSha256", "BYTE_ARRAY", "UTF8", "REQUIRED"],
    ]);
  });

  it("reads back every value exactly, nulls included", async () => {
    const path = join(dir, "batch.parquet");
    await writeBatchParquet(path, sampleRows());
    const read = await parquetReadObjects({ file: load(path) });
    // INT64 comes back as bigint; everything else as written, doubles bit for bit.
    expect(read).toEqual(sampleRows().map((r) => ({ ...r, tokens: BigInt(r.tokens) })));
  });

  it("writes a readable file with zero rows for an empty batch", async () => {
    const path = join(dir, "batch.parquet");
    await writeBatchParquet(path, []);
    const metadata = parquetMetadata(load(path));
    expect(Number(metadata.num_rows)).toBe(0);
    expect(metadata.schema.map((c) => c.name).slice(1)).toEqual(BATCH_COLUMNS);
  });

  it("leaves the previous file untouched when a row is invalid", async () => {
    const path = join(dir, "batch.parquet");
    writeFileSync(path, "previous");
    const rows = sampleRows();
    rows[0] = { ...rows[0]!, weight: Number.POSITIVE_INFINITY };
    await expect(writeBatchParquet(path, rows)).rejects.toThrow(InvariantError);
    expect(readFileSync(path, "utf8")).toBe("previous");
    expect(readdirSync(dir)).toEqual(["batch.parquet"]);
  });

  it("leaves nothing behind when the file cannot be put in place", async () => {
    const path = join(dir, "batch.parquet");
    mkdirSync(join(path, "occupied"), { recursive: true });
    await expect(writeBatchParquet(path, sampleRows())).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(["batch.parquet"]);
  });
});
