import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

const FIXTURES = join(import.meta.dirname, "schema-fixtures");

/**
 * Stores written by past schema versions, as SQL dumps (`v<version>.sql`): each is what a gagar of
 * that version left on disk. A new migration must open every one of them and read their records
 * back unchanged (schema-fixtures.test.ts); when a migration ships, dump a store of the version it
 * replaces here first.
 */
export function schemaFixtureVersions(): number[] {
  return readdirSync(FIXTURES)
    .flatMap((name) => /^v(\d+)\.sql$/.exec(name)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => a - b);
}

/** Writes the store of schema version `version` to `file`, exactly as the dump has it (no migration). */
export function writeSchemaFixture(version: number, file: string): void {
  const db = new Database(file);
  try {
    // The dump lists tables alphabetically, children before parents.
    db.pragma("foreign_keys = OFF");
    db.exec(readFileSync(join(FIXTURES, `v${version}.sql`), "utf8"));
  } finally {
    db.close();
  }
}
