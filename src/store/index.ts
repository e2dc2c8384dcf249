export type { CandidateInput, GroupInput, StoredCandidate, StoredGroup } from "./groups.ts";
export { migrate, schemaVersion } from "./migrate.ts";
export { MIGRATIONS, type Migration } from "./migrations.ts";
export { patchSha256 } from "./patch-sha.ts";
export { openStore, type RunStore, type StoreOptions } from "./run-store.ts";
export type { RunRecord, StepMetrics, StepRecord, StepStatus } from "./runs.ts";
export { openSqliteStore, SqliteRunStore, type SqliteStoreOptions } from "./sqlite-run-store.ts";
export type { JsonObject } from "./store-context.ts";
export type { TaskOutcome, TaskStats } from "./task-stats.ts";
