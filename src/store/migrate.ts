import type { Database } from "better-sqlite3";
import { InputError, InvariantError } from "../errors.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

export interface MigrationResult {
  from: number;
  to: number;
}

/** The schema version recorded in the file (`PRAGMA user_version`; 0 for a fresh file). */
export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the store to the newest version of `migrations`, one transaction per migration.
 * The version is re-read inside each (immediate) transaction, so two processes opening the same
 * old store at once apply each migration exactly once. A store written by a newer gagar is refused
 * rather than guessed at.
 */
export function migrate(
  db: Database,
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  checkOrdered(migrations);
  const latest = migrations.length;
  const from = schemaVersion(db);
  refuseNewer(from, latest, file);
  const step = db.transaction((): boolean => {
    const current = schemaVersion(db);
    refuseNewer(current, latest, file);
    const next = migrations[current];
    if (!next) return false;
    next.up(db);
    db.pragma(`user_version = ${next.version}`);
    return true;
  });
  while (step.immediate()) {}
  return { from, to: schemaVersion(db) };
}

/** For read-only connections, which cannot migrate: the file must already be at the newest version. */
export function requireCurrent(
  db: Database,
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
): void {
  const version = schemaVersion(db);
  refuseNewer(version, migrations.length, file);
  if (version < migrations.length)
    throw new InputError(
      { file },
      `run store is at schema version ${version}, this gagar needs ${migrations.length}; ` +
        "open it once read-write (any gagar command that writes to it) to migrate it",
    );
}

function refuseNewer(version: number, latest: number, file: string): void {
  if (version > latest)
    throw new InputError(
      { file },
      `run store has schema version ${version}, newer than this gagar understands (${latest}); ` +
        "use the gagar version that wrote it, or a new store file",
    );
}

function checkOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new InvariantError(`migration at position ${i} has version ${m.version}, expected ${i + 1}`);
  });
}
