import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { InputError, InvariantError } from "../errors.ts";
import { migrate, schemaVersion } from "./migrate.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

/** A stand-in for the next real migration: adds a column and backfills it from existing rows. */
const addRunLabel: Migration = {
  version: MIGRATIONS.length + 1,
  description: "runs.label",
  up(db) {
    db.exec("ALTER TABLE runs ADD COLUMN label TEXT");
    db.exec("UPDATE runs SET label = 'legacy:' || id");
  },
};

function storeAtCurrentVersion(): Database.Database {
  const db = new Database(":memory:");
  migrate(db, "test.db");
  db.prepare("INSERT INTO runs (id, created_at, config) VALUES ('r1', '2026-01-01T00:00:00Z', '{}')").run();
  return db;
}

describe("migrate", () => {
  it("creates a fresh store at the newest version", () => {
    const db = new Database(":memory:");
    expect(migrate(db, "test.db")).toEqual({ from: 0, to: MIGRATIONS.length });
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      "advantages",
      "candidates",
      "groups",
      "rankings",
      "runs",
      "steps",
      "task_stats",
      "verdicts",
    ]);
  });

  it("is a no-op on a store that is already current", () => {
    const db = storeAtCurrentVersion();
    expect(migrate(db, "test.db")).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length });
    expect(db.prepare("SELECT count(*) FROM runs").pluck().get()).toBe(1);
  });

  it("brings a store written at an older version forward, keeping its data", () => {
    const db = storeAtCurrentVersion();
    const result = migrate(db, "test.db", [...MIGRATIONS, addRunLabel]);
    expect(result).toEqual({ from: MIGRATIONS.length, to: addRunLabel.version });
    expect(db.prepare("SELECT id, label FROM runs").all()).toEqual([{ id: "r1", label: "legacy:r1" }]);
  });

  it("refuses a store from a newer gagar, naming the file", () => {
    const db = storeAtCurrentVersion();
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    const attempt = () => migrate(db, "/data/run.db");
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(
      `/data/run.db: run store has schema version ${MIGRATIONS.length + 1}, ` +
        `newer than this gagar understands (${MIGRATIONS.length})`,
    );
  });

  it("leaves the version unchanged when a migration fails halfway", () => {
    const db = storeAtCurrentVersion();
    const broken: Migration = {
      version: MIGRATIONS.length + 1,
      description: "fails after a partial change",
      up(d) {
        d.exec("ALTER TABLE runs ADD COLUMN label TEXT");
        d.exec("SELECT * FROM no_such_table");
      },
    };
    expect(() => migrate(db, "test.db", [...MIGRATIONS, broken])).toThrow(/no_such_table/);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const columns = db.prepare("SELECT name FROM pragma_table_info('runs')").pluck().all();
    expect(columns).not.toContain("label");
  });

  it("rejects a history with gaps or out of order", () => {
    const db = new Database(":memory:");
    const gap = [...MIGRATIONS, { ...addRunLabel, version: MIGRATIONS.length + 2 }];
    expect(() => migrate(db, "test.db", gap)).toThrow(InvariantError);
    expect(schemaVersion(db)).toBe(0);
  });
});
