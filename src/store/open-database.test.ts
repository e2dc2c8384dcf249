import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError } from "../errors.ts";
import { schemaVersion } from "./migrate.ts";
import { MIGRATIONS } from "./migrations.ts";
import { openDatabase } from "./open-database.ts";
import { openStore } from "./run-store.ts";
import { tempDir } from "./testing/fixtures.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

function expectInputError(open: () => unknown, file: string, detail: RegExp): void {
  let error: unknown;
  try {
    open();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).location.file).toBe(file);
  expect((error as Error).message.startsWith(`${file}: `)).toBe(true);
  expect((error as Error).message).toMatch(detail);
}

describe("openDatabase", () => {
  it("creates a store file in WAL mode that keeps its records across reopening", () => {
    const file = join(dir, "run.db");
    const store = openStore(file);
    const id = store.createRun({ seed: 7 });
    store.close();

    const raw = new Database(file, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(schemaVersion(raw)).toBe(MIGRATIONS.length);
    raw.close();

    const reopened = openStore(file);
    expect(reopened.getRun(id)?.config).toEqual({ seed: 7 });
    reopened.close();
  });

  it("refuses a file that is not SQLite, naming it", () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "these are my notes, not a database\n".repeat(20));
    expectInputError(
      () => openStore(file),
      file,
      /not a gagar run store: SQLite says "file is not a database"/,
    );
  });

  it("refuses a damaged store file, naming it", () => {
    const file = join(dir, "run.db");
    openStore(file).close();
    writeFileSync(file, Buffer.alloc(4096, 0x5a));
    expectInputError(() => openStore(file), file, /not a gagar run store/);
  });

  it("refuses another application's SQLite database instead of adding tables to it", () => {
    const file = join(dir, "other.db");
    const other = new Database(file);
    other.exec("CREATE TABLE runs (name TEXT)");
    other.close();
    expectInputError(() => openStore(file), file, /SQLite database but not a gagar run store/);

    const versioned = new Database(file);
    versioned.pragma("user_version = 1");
    versioned.close();
    expectInputError(() => openStore(file), file, /another application \(application_id 0\)/);
  });

  it("refuses a store written by a newer gagar, naming the file", () => {
    const file = join(dir, "run.db");
    openStore(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expectInputError(() => openStore(file), file, /newer than this gagar understands/);
  });

  it("migrates a store written at an older version when opened", () => {
    const file = join(dir, "run.db");
    const old = openStore(file);
    const id = old.createRun({ kept: "yes" });
    old.close();

    const next = {
      version: MIGRATIONS.length + 1,
      description: "steps.note",
      up: (db: Database.Database) => db.exec("ALTER TABLE steps ADD COLUMN note TEXT"),
    };
    const db = openDatabase(file, { migrations: [...MIGRATIONS, next] });
    expect(schemaVersion(db)).toBe(next.version);
    expect(db.prepare("SELECT config FROM runs WHERE id = ?").pluck().get(id)).toBe('{"kept":"yes"}');
    db.close();
    // The current gagar now sees a store from its future and refuses it.
    expectInputError(() => openStore(file), file, /newer/);
  });

  it("says what is wrong with paths it cannot open", () => {
    const missingDir = join(dir, "nope", "run.db");
    expectInputError(() => openStore(missingDir), missingDir, /directory does not exist/);
    const missing = join(dir, "missing.db");
    expectInputError(() => openStore(missing, { readonly: true }), missing, /cannot open the run store/);
    expectInputError(() => openStore(dir), dir, /is a folder; a run store is a file/);
    expectInputError(() => openStore(dir, { readonly: true }), dir, /is a folder; a run store is a file/);
  });

  it("will not migrate through a read-only connection", () => {
    const file = join(dir, "empty.db");
    new Database(file).close();
    expectInputError(() => openStore(file, { readonly: true }), file, /schema version 0, this gagar needs/);
  });
});
