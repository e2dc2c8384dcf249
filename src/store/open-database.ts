import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { GagarError, InputError } from "../errors.ts";
import { migrate, requireCurrent, schemaVersion } from "./migrate.ts";
import { GAGAR_APPLICATION_ID, MIGRATIONS, type Migration } from "./migrations.ts";

export interface OpenDatabaseOptions {
  /** Open for reading only (dashboards, reports next to a running step); never migrates. */
  readonly?: boolean;
  /** How long a statement waits for another connection's write lock before failing. */
  busyTimeoutMs?: number;
  /** The schema history; tests pass a longer one to exercise a future migration. */
  migrations?: readonly Migration[];
}

/**
 * Opens (creating if needed) an SQLite file as a gagar run store and brings it to the current
 * schema. WAL journaling lets readers in other processes read while a step writes; with
 * `synchronous = NORMAL` a commit survives a crash of the process (what resuming a killed step
 * needs), though the last commits may be lost on power failure.
 *
 * Anything that is not a gagar store — a text file, a corrupt file, someone else's SQLite
 * database, a store from a newer gagar — is refused with an InputError naming the file.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const { readonly = false, busyTimeoutMs = 5000, migrations = MIGRATIONS } = options;
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory())
    throw new InputError({ file }, "is a folder; a run store is a file (e.g. gagar-demo/gagar.sqlite)");
  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs });
  } catch (e) {
    throw openError(file, e);
  }
  try {
    if (!readonly) db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("synchronous = NORMAL");
    checkIsGagarStore(db, file);
    if (readonly) requireCurrent(db, file, migrations);
    else migrate(db, file, migrations);
    return db;
  } catch (e) {
    db.close();
    throw openError(file, e);
  }
}

function checkIsGagarStore(db: Database.Database, file: string): void {
  const version = schemaVersion(db);
  const applicationId = db.pragma("application_id", { simple: true }) as number;
  if (version === 0) {
    const objects = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
    if (objects.n > 0)
      throw new InputError(
        { file },
        "is an SQLite database but not a gagar run store (it has tables and no gagar schema version); " +
          "use a new file for the store",
      );
  } else if (applicationId !== GAGAR_APPLICATION_ID) {
    throw new InputError(
      { file },
      `is an SQLite database of another application (application_id ${applicationId}), not a gagar run store`,
    );
  }
}

/** Turns SQLite's terse open failures into errors that name the file and say what to do. */
function openError(file: string, e: unknown): Error {
  if (e instanceof GagarError) return e;
  const code = (e as { code?: unknown }).code;
  const message = e instanceof Error ? e.message : String(e);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT")
    return new InputError(
      { file },
      `is not a gagar run store: SQLite says "${message}" (the file is corrupt or of another kind); ` +
        "point the store at a different path or move this file away",
    );
  if (/directory does not exist/.test(message))
    return new InputError({ file }, "cannot create the run store: its directory does not exist");
  if (code === "SQLITE_CANTOPEN")
    return new InputError(
      { file },
      `cannot open the run store (${message}); check that the path exists and is a readable file`,
    );
  if (code === "SQLITE_BUSY")
    return new InputError(
      { file },
      "the run store is locked by another process (a long write or a stuck gagar); retry when it finishes",
    );
  return e instanceof Error ? e : new Error(message);
}
