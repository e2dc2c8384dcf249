import type { Database } from "better-sqlite3";

/**
 * `PRAGMA application_id` of a gagar run store ("gagr" in ASCII), so that opening some other SQLite
 * file is refused instead of being migrated into a mixture of two schemas.
 */
export const GAGAR_APPLICATION_ID = 0x67616772;

/**
 * One step of the store's schema history. Migration k takes a store from `PRAGMA user_version`
 * k-1 to k; `migrate` runs each in its own transaction, so a crash leaves a whole version.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}

/**
 * Version 1: everything. Notes on the choices:
 * - `seq INTEGER PRIMARY KEY` beside text ids: insertion order must survive VACUUM, which may
 *   renumber the implicit rowid of tables without one.
 * - verdicts are keyed by content (task, patch hash), not by candidate: identical patches of a task
 *   are verified once and a resumed step finds them.
 * - `kept` is NULL until the dynamic-sampling filter has decided, so a resumed step can tell.
 */
const V1_SCHEMA = `
CREATE TABLE runs (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  config TEXT NOT NULL CHECK (json_valid(config))
);

CREATE TABLE steps (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  idx INTEGER NOT NULL CHECK (idx >= 0),
  status TEXT NOT NULL CHECK (status IN ('running', 'done')),
  started_at TEXT NOT NULL,
  finished_at TEXT,
  metrics TEXT CHECK (metrics IS NULL OR json_valid(metrics)),
  UNIQUE (run_id, idx)
);

CREATE TABLE groups (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  step_id INTEGER NOT NULL REFERENCES steps(id),
  task_id TEXT NOT NULL,
  round INTEGER NOT NULL CHECK (round >= 0),
  kept INTEGER CHECK (kept IN (0, 1)),
  drop_reason TEXT
);
CREATE INDEX groups_by_step ON groups (step_id, seq);

CREATE TABLE candidates (
  group_id TEXT NOT NULL REFERENCES groups(id),
  id TEXT NOT NULL,
  pos INTEGER NOT NULL,
  patch TEXT NOT NULL,
  patch_sha256 TEXT NOT NULL,
  trajectory TEXT NOT NULL CHECK (json_valid(trajectory)),
  PRIMARY KEY (group_id, id),
  UNIQUE (group_id, pos)
);

CREATE TABLE verdicts (
  task_id TEXT NOT NULL,
  patch_sha256 TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (json_valid(verdict)),
  created_at TEXT NOT NULL,
  PRIMARY KEY (task_id, patch_sha256)
);

CREATE TABLE rankings (
  group_id TEXT NOT NULL REFERENCES groups(id),
  grader_key TEXT NOT NULL,
  ranking TEXT NOT NULL CHECK (json_valid(ranking)),
  created_at TEXT NOT NULL,
  PRIMARY KEY (group_id, grader_key)
);

CREATE TABLE advantages (
  step_id INTEGER NOT NULL REFERENCES steps(id),
  group_id TEXT NOT NULL REFERENCES groups(id),
  candidate_id TEXT NOT NULL,
  row TEXT NOT NULL CHECK (json_valid(row)),
  PRIMARY KEY (step_id, group_id, candidate_id),
  FOREIGN KEY (group_id, candidate_id) REFERENCES candidates(group_id, id)
);

CREATE TABLE task_stats (
  task_id TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL CHECK (attempts >= 0),
  passes INTEGER NOT NULL CHECK (passes >= 0 AND passes <= attempts),
  groups INTEGER NOT NULL CHECK (groups >= 0),
  informative_groups INTEGER NOT NULL CHECK (informative_groups >= 0 AND informative_groups <= groups),
  last_step INTEGER NOT NULL
);
`;

/** The schema history, oldest first; append, never edit a released entry. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "runs, steps, groups, candidates, verdicts, rankings, advantages, task_stats",
    up(db) {
      db.exec(V1_SCHEMA);
      db.pragma(`application_id = ${GAGAR_APPLICATION_ID}`);
    },
  },
];
