import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { z } from "zod";
import { InputError } from "../errors.ts";
import { parseRecord } from "./validate.ts";

export interface JsonlRecord<T> {
  value: T;
  /** 1-based line number in the file. */
  line: number;
}

/**
 * Streams a JSONL file, validating each non-blank line against `schema`.
 * Fails on the first bad line with the file, the line number and the field path.
 */
export async function* readJsonl<S extends z.ZodType>(
  file: string,
  schema: S,
): AsyncGenerator<JsonlRecord<z.output<S>>> {
  const stream = createReadStream(file, { encoding: "utf8" });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", (e) => reject(unreadable(file, e)));
  });
  await opened;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (!text.trim()) continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new InputError({ file, line }, `not valid JSON (${(e as Error).message})`);
      }
      yield { value: parseRecord(schema, json, { file, line }), line };
    }
  } catch (e) {
    // A folder opens fine and fails on the first read; so do some special files.
    if ((e as NodeJS.ErrnoException).code !== undefined) throw unreadable(file, e);
    throw e;
  } finally {
    stream.destroy();
  }
}

/** An input that cannot be read, as the user's error: it names the file and says why. */
function unreadable(file: string, e: unknown): InputError {
  const { code, message } = e as NodeJS.ErrnoException;
  if (code === "ENOENT") return new InputError({ file }, "no such file");
  if (code === "EISDIR") return new InputError({ file }, "is a folder, not a file");
  return new InputError({ file }, `cannot read it (${code ?? message})`);
}

/** Reads a whole JSONL file into memory (for inputs that are joined, like rankings by group id). */
export async function readJsonlAll<S extends z.ZodType>(
  file: string,
  schema: S,
): Promise<JsonlRecord<z.output<S>>[]> {
  const out: JsonlRecord<z.output<S>>[] = [];
  for await (const record of readJsonl(file, schema)) out.push(record);
  return out;
}

export function toJsonlLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
