import type { Database } from "better-sqlite3";
import type { z } from "zod";
import { InputError } from "../errors.ts";

/** What every table module of the store shares: the connection, its file (for messages) and the clock. */
export interface StoreContext {
  db: Database;
  file: string;
  now(): Date;
}

/** A JSON object column value (configs, metrics). */
export type JsonObject = Record<string, unknown>;

/**
 * Encodes a value for a JSON column. JSON has no NaN or Infinity: like JSON.stringify everywhere,
 * they become null, so a metric that is undefined for an empty step reads back as null.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * Decodes a JSON column and validates it. A row that does not parse means the file was edited or
 * damaged outside gagar, so the error names the file, the column and the row.
 */
export function fromJson<S extends z.ZodType>(
  ctx: StoreContext,
  text: string,
  schema: S,
  column: string,
  row: string,
): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(
      { file: ctx.file, field: column },
      `${row}: not valid JSON (${(e as Error).message})`,
    );
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length ? ` at ${issue.path.map(String).join(".")}` : "";
  throw new InputError({ file: ctx.file, field: column }, `${row}: ${issue.message}${path}`);
}
