import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { readJsonlAll } from "../io/jsonl.ts";
import { BATCH_COLUMNS, BatchRow } from "./batch-row.ts";
import { sampleRows } from "./testing/rows.ts";
import { writeBatchJsonl } from "./write-jsonl.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gagar-batch-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeBatchJsonl", () => {
  it("writes one row per line that reads back exactly, keys in column order", async () => {
    const path = join(dir, "batch.jsonl");
    await writeBatchJsonl(path, sampleRows());
    const read = await readJsonlAll(path, BatchRow);
    expect(read.map((r) => r.value)).toEqual(sampleRows());
    const firstLine = readFileSync(path, "utf8").split("\n")[0]!;
    expect(Object.keys(JSON.parse(firstLine))).toEqual(BATCH_COLUMNS);
    expect(readFileSync(path, "utf8").endsWith("}\n")).toBe(true);
  });

  it("writes an empty file for an empty batch", async () => {
    const path = join(dir, "batch.jsonl");
    await writeBatchJsonl(path, []);
    expect(readFileSync(path, "utf8")).toBe("");
  });

  it("leaves the previous file untouched when a row is invalid", async () => {
    const path = join(dir, "batch.jsonl");
    writeFileSync(path, "previous\n");
    const rows = sampleRows();
    rows[2] = { ...rows[2]!, tier: -1 };
    await expect(writeBatchJsonl(path, rows)).rejects.toThrow(InvariantError);
    expect(readFileSync(path, "utf8")).toBe("previous\n");
    expect(readdirSync(dir)).toEqual(["batch.jsonl"]);
  });

  it("leaves nothing behind when the file cannot be put in place", async () => {
    const path = join(dir, "batch.jsonl");
    mkdirSync(join(path, "occupied"), { recursive: true });
    await expect(writeBatchJsonl(path, sampleRows())).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(["batch.jsonl"]);
  });
});
