import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { patchSha256 } from "./patch-sha.ts";
import type { RunStore } from "./run-store.ts";
import { ranking, verdict } from "./testing/fixtures.ts";

/**
 * What every RunStore implementation must do, stated once and run against each (see
 * sqlite-run-store.test.ts). Only the interface is used here: nothing about tables or files.
 */
export interface StoreContractTarget {
  name: string;
  /** A fresh, empty store with a clock that advances between calls. */
  open(): RunStore;
  /** Opens the same store again after `close` (persistent implementations only). */
  reopen?(): RunStore;
}

const advantageRow = (groupId: string, candidateId: string, advantage: number, tier: number | null) => ({
  groupId,
  candidateId,
  reward: advantage > 0 ? 1 : 0,
  baseAdvantage: advantage,
  advantage,
  weight: 1,
  tier,
});

/** A run with one running step and one saved group `g1` of task `calc` with candidates r1, r2. */
function stepWithGroup(store: RunStore) {
  const runId = store.createRun({ groupSize: 2 });
  const step = store.beginStep(runId, 0);
  const group = store.saveGroup(step.id, { id: "g1", taskId: "calc", round: 0 }, [
    { id: "r1", patch: "diff --git a/x b/x\n+fix\n", trajectory: { turns: 3, tokens: 900 } },
    { id: "r2", patch: "diff --git a/x b/x\n+hack\n" },
  ]);
  return { runId, step, group };
}

export function runStoreContract(target: StoreContractTarget): void {
  describe(`RunStore contract: ${target.name}`, () => {
    it("keeps each run's config and gives the latest run", () => {
      const store = target.open();
      expect(store.latestRun()).toBeUndefined();
      const a = store.createRun({ seed: 1, grader: { name: "static" } });
      const b = store.createRun({ seed: 2 });
      expect(a).not.toBe(b);
      expect(store.getRun(a)?.config).toEqual({ seed: 1, grader: { name: "static" } });
      expect(store.latestRun()?.id).toBe(b);
      expect(store.getRun("no-such-run")).toBeUndefined();
      expect(() => store.createRun([1, 2])).toThrow(InvariantError);
      store.close();
    });

    it("resumes a running step and refuses to begin or finish a done one", () => {
      const store = target.open();
      const runId = store.createRun({});
      const step = store.beginStep(runId, 0);
      expect(step).toMatchObject({ runId, idx: 0, status: "running", metrics: null });
      expect(store.beginStep(runId, 0).id).toBe(step.id);
      const done = store.finishStep(step.id, { passRate: 0.5 });
      expect(done).toMatchObject({ status: "done", metrics: { passRate: 0.5 } });
      expect(done.finishedAt).not.toBeNull();
      expect(() => store.beginStep(runId, 0)).toThrow(InvariantError);
      expect(() => store.finishStep(step.id, {})).toThrow(InvariantError);
      store.finishStep(store.beginStep(runId, 2).id, { passRate: 1 });
      store.beginStep(runId, 1);
      expect(store.stepMetrics(runId)).toEqual([
        { idx: 0, metrics: { passRate: 0.5 } },
        { idx: 2, metrics: { passRate: 1 } },
      ]);
      expect(store.getStep(runId, 1)?.status).toBe("running");
      expect(store.getStep(runId, 3)).toBeUndefined();
      expect(() => store.beginStep("no-such-run", 0)).toThrow(InvariantError);
      store.close();
    });

    it("gives a step's groups and candidates back in the order saved, with patch hashes", () => {
      const store = target.open();
      const { step } = stepWithGroup(store);
      store.saveGroup(step.id, { id: "g0", taskId: "calc", round: 1 }, [{ id: "r9", patch: "p" }]);
      const groups = store.getStepGroups(step.id);
      expect(groups.map((g) => g.id)).toEqual(["g1", "g0"]);
      expect(groups[0]).toMatchObject({ taskId: "calc", round: 0, kept: null, dropReason: null });
      expect(groups[0]!.candidates).toEqual([
        {
          id: "r1",
          patch: "diff --git a/x b/x\n+fix\n",
          patchSha256: patchSha256("diff --git a/x b/x\n+fix\n"),
          trajectory: { turns: 3, tokens: 900 },
        },
        {
          id: "r2",
          patch: "diff --git a/x b/x\n+hack\n",
          patchSha256: patchSha256("diff --git a/x b/x\n+hack\n"),
          trajectory: {},
        },
      ]);
      store.markGroup("g1", true);
      store.markGroup("g0", false, "all-fail");
      expect(store.getStepGroups(step.id).map((g) => [g.kept, g.dropReason])).toEqual([
        [true, null],
        [false, "all-fail"],
      ]);
      expect(() => store.saveGroup(step.id, { id: "g1", taskId: "calc", round: 0 }, [])).toThrow(
        InvariantError,
      );
      expect(() => store.markGroup("g1", true, "why")).toThrow(InvariantError);
      expect(() => store.markGroup("nope", true)).toThrow(InvariantError);
      store.finishStep(step.id, {});
      expect(() => store.saveGroup(step.id, { id: "late", taskId: "calc", round: 0 }, [])).toThrow(
        InvariantError,
      );
      store.close();
    });

    it("stores a verdict once per (task, patch): the first one saved stays", () => {
      const store = target.open();
      const sha = patchSha256("fix");
      expect(store.findVerdict("calc", sha)).toBeUndefined();
      expect(store.saveVerdict("calc", sha, verdict("calc", "r1", true))).toBe(true);
      expect(store.saveVerdict("calc", sha, verdict("calc", "r7", false))).toBe(false);
      expect(store.findVerdict("calc", sha)).toMatchObject({ rolloutId: "r1", passed: true });
      expect(store.findVerdict("other-task", sha)).toBeUndefined();
      expect(store.countVerdicts()).toBe(1);
      expect(() =>
        store.saveVerdict("calc", patchSha256("x"), verdict("calc", "r2", false, { reason: "infra-error" })),
      ).toThrow(InvariantError);
      expect(() => store.saveVerdict("calc", patchSha256("y"), verdict("elsewhere", "r3", true))).toThrow(
        InvariantError,
      );
      expect(store.countVerdicts()).toBe(1);
      store.close();
    });

    it("stores a ranking once per (group, grader key)", () => {
      const store = target.open();
      stepWithGroup(store);
      expect(store.findRanking("g1", "static@1")).toBeUndefined();
      expect(store.saveRanking("g1", "static@1", ranking("g1", [["r1"], ["r2"]]))).toBe(true);
      expect(store.saveRanking("g1", "static@1", ranking("g1", [["r2"], ["r1"]]))).toBe(false);
      expect(store.findRanking("g1", "static@1")?.ranking).toEqual([["r1"], ["r2"]]);
      expect(store.findRanking("g1", "agent@1")).toBeUndefined();
      expect(() => store.saveRanking("nope", "static@1", ranking("nope", [["a"]]))).toThrow(InvariantError);
      expect(store.saveRanking("g1", "agent@1", ranking("g1", [["r1", "r2"]]))).toBe(true);
      expect(store.groupRankings("g1").map((r) => r.ranking)).toEqual([[["r1"], ["r2"]], [["r1", "r2"]]]);
      expect(store.groupRankings("nope")).toEqual([]);
      store.close();
    });

    it("replaces a group's advantages as a whole and refuses rows that do not cover it", () => {
      const store = target.open();
      const { step } = stepWithGroup(store);
      const rows = [advantageRow("g1", "r1", 1.5, 0), advantageRow("g1", "r2", -1.5, null)];
      store.saveAdvantages(step.id, rows);
      store.saveAdvantages(step.id, rows);
      expect(store.stepAdvantages(step.id)).toEqual(rows);
      expect(() => store.saveAdvantages(step.id, [rows[0]!])).toThrow(InvariantError);
      expect(() => store.saveAdvantages(step.id, [...rows, advantageRow("g1", "r3", 0, null)])).toThrow(
        InvariantError,
      );
      expect(store.stepAdvantages(step.id)).toEqual(rows);
      store.close();
    });

    it("adds task outcomes up across groups", () => {
      const store = target.open();
      store.recordTaskOutcome("calc", { attempts: 8, passes: 3, informative: true }, 0);
      store.recordTaskOutcome("calc", { attempts: 8, passes: 8, informative: false }, 1);
      store.recordTaskOutcome("ini", { attempts: 4, passes: 0, informative: false }, 1);
      expect(Object.fromEntries(store.taskStats())).toEqual({
        calc: { attempts: 16, passes: 11, groups: 2, informativeGroups: 1, lastStep: 1 },
        ini: { attempts: 4, passes: 0, groups: 1, informativeGroups: 0, lastStep: 1 },
      });
      expect(() => store.recordTaskOutcome("calc", { attempts: 2, passes: 3, informative: true }, 2)).toThrow(
        InvariantError,
      );
      store.close();
    });

    it("lands all writes of a transaction or none", () => {
      const store = target.open();
      const { step } = stepWithGroup(store);
      expect(() =>
        store.transaction(() => {
          store.markGroup("g1", true);
          store.recordTaskOutcome("calc", { attempts: 2, passes: 1, informative: true }, 0);
          throw new Error("killed between the two");
        }),
      ).toThrow("killed between the two");
      expect(store.getStepGroups(step.id)[0]!.kept).toBeNull();
      expect(store.taskStats().size).toBe(0);
      const value = store.transaction(() => {
        store.markGroup("g1", true);
        store.transaction(() =>
          store.recordTaskOutcome("calc", { attempts: 2, passes: 1, informative: true }, 0),
        );
        return 42;
      });
      expect(value).toBe(42);
      expect(store.getStepGroups(step.id)[0]!.kept).toBe(true);
      expect(store.taskStats().get("calc")?.groups).toBe(1);
      store.close();
    });

    if (target.reopen) {
      const reopen = target.reopen;
      it("keeps everything across close and reopen (a killed step resumes)", () => {
        const before = target.open();
        const { runId, step } = stepWithGroup(before);
        before.saveVerdict("calc", patchSha256("diff --git a/x b/x\n+fix\n"), verdict("calc", "r1", true));
        before.saveRanking("g1", "static@1", ranking("g1", [["r1"]]));
        before.close();

        const after = reopen();
        expect(after.latestRun()?.id).toBe(runId);
        expect(after.beginStep(runId, 0).id).toBe(step.id);
        const [group] = after.getStepGroups(step.id);
        expect(group!.candidates.map((c) => c.id)).toEqual(["r1", "r2"]);
        const unverified = group!.candidates.filter((c) => !after.findVerdict("calc", c.patchSha256));
        expect(unverified.map((c) => c.id)).toEqual(["r2"]);
        expect(after.findRanking("g1", "static@1")?.ranking).toEqual([["r1"]]);
        after.close();
      });
    }
  });
}
