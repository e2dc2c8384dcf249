import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Ranking } from "../../contracts/ranking.ts";
import type { Verdict } from "../../contracts/verdict.ts";
import { openStore, type RunStore } from "../run-store.ts";
import type { SqliteStoreOptions } from "../sqlite-run-store.ts";

/** A clock that advances one second per call from 2026-01-01, so timestamps are distinct and predictable. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let t = start;
  return () => {
    const now = new Date(t);
    t += 1000;
    return now;
  };
}

/** An in-memory store with a stepping clock and run ids `run-1`, `run-2`, … */
export function memoryStore(options: SqliteStoreOptions = {}): RunStore {
  let runs = 0;
  return openStore(":memory:", { now: steppingClock(), newRunId: () => `run-${++runs}`, ...options });
}

/** A temporary directory removed by the returned `cleanup`. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "gagar-store-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function verdict(
  taskId: string,
  rolloutId: string,
  passed: boolean,
  extra: Partial<Verdict> = {},
): Verdict {
  return {
    schemaVersion: 1,
    rolloutId,
    taskId,
    passed,
    reason: passed ? "passed" : "tests-failed",
    tests: { "tests/test_a.py::test_a": passed ? "passed" : "failed" },
    durationsMs: { tests: 12 },
    findings: [],
    ...extra,
  };
}

export function ranking(groupId: string, tiers: string[][]): Ranking {
  return {
    schemaVersion: 1,
    groupId,
    ranking: tiers,
    findings: {},
    grader: { name: "static", version: "1" },
  };
}
