import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS } from "./migrations.ts";
import { openStore } from "./run-store.ts";
import { tempDir } from "./testing/fixtures.ts";
import { schemaFixtureVersions, writeSchemaFixture } from "./testing/schema-fixtures.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const RUN = "run-20261201T073716Z-34be";
const KEPT = `${RUN}/s0/r0/daterange-month-rollover`;
const DROPPED = `${RUN}/s0/r0/semver-prerelease-order`;

describe("stores written by every past schema version", () => {
  it("has a fixture of the current version", () => {
    expect(schemaFixtureVersions()).toContain(MIGRATIONS.length);
  });

  for (const version of schemaFixtureVersions()) {
    it(`opens a version ${version} store, migrates it and reads its step back whole`, () => {
      const file = join(dir, `v${version}.sqlite`);
      writeSchemaFixture(version, file);
      const store = openStore(file);
      const run = store.latestRun()!;
      expect(run.id).toBe(RUN);
      expect(run.config).toMatchObject({ tasks: "examples/tasks", groupSize: 8, grader: "static" });
      const step = store.getStep(RUN, 0)!;
      expect(step.status).toBe("done");
      expect(store.stepMetrics(RUN)).toEqual([{ idx: 0, metrics: step.metrics }]);

      const groups = store.getStepGroups(step.id);
      expect(groups.map((g) => [g.id, g.kept, g.dropReason, g.candidates.length])).toEqual([
        [KEPT, true, null, 8],
        [DROPPED, false, "surplus", 8],
      ]);
      for (const g of groups) {
        for (const c of g.candidates) {
          expect(c.trajectory.tokens).toBeGreaterThan(0);
          expect(store.findVerdict(g.taskId, c.patchSha256)?.taskId).toBe(g.taskId);
        }
      }
      expect(store.countVerdicts()).toBe(16);

      const ranking = store.findRanking(KEPT, "static@1.0.0")!;
      expect(ranking.ranking[0]).toEqual([
        "daterange-month-rollover-r01",
        "daterange-month-rollover-r03",
        "daterange-month-rollover-r05",
      ]);
      // The stored advantages still satisfy the GAGAR invariant they were written under.
      const rows = store.stepAdvantages(step.id);
      expect(rows.map((r) => r.candidateId)).toEqual(groups[0]!.candidates.map((c) => c.id));
      const passing = rows.filter((r) => r.tier !== null);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      expect(sum(passing.map((r) => r.advantage))).toBeCloseTo(sum(passing.map((r) => r.baseAdvantage)), 9);
      expect(Object.fromEntries(store.taskStats())).toEqual({
        "daterange-month-rollover": { attempts: 8, passes: 6, groups: 1, informativeGroups: 1, lastStep: 0 },
        "semver-prerelease-order": { attempts: 8, passes: 5, groups: 1, informativeGroups: 1, lastStep: 0 },
      });
      store.close();

      const db = new Database(file, { readonly: true });
      expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      db.close();
    });
  }
});
