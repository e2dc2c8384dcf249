import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import { makeGroup, makeTaskPack, PATCH_STALE, type TaskPack } from "./agent/testing/grader-fixtures.ts";
import type { Grader } from "./types.ts";

/**
 * What every grader keeps (types.ts), whatever ranks the candidates:
 * - it ranks exactly the passing candidates, each once; a failing one is never in a tier;
 * - it never throws on a candidate whose patch does not apply, nor, for a grader that asks a model, on
 *   a model server that fails (it falls back and says so);
 * - the ranking depends on the candidates, not on their order or their ids.
 */
export interface GraderContractTarget {
  name: string;
  /** The grader, and for one that asks a model, the same grader against a model server that fails. */
  make(): Promise<{ grader: Grader; failingModel?: Grader; close(): Promise<void> }>;
}

export function graderContract(target: GraderContractTarget): void {
  describe(`grader contract: ${target.name}`, () => {
    let pack: TaskPack;
    let made: Awaited<ReturnType<GraderContractTarget["make"]>>;
    let group: Group;
    beforeAll(async () => {
      pack = await makeTaskPack();
      made = await target.make();
      group = makeGroup({ workspace: pack.repo });
    });
    afterAll(async () => {
      await made?.close();
      await pack?.dispose();
    });

    const rankedIds = (ranking: Ranking) => ranking.ranking.flat();
    const passing = (g: Group) => g.candidates.filter((c) => c.passed).map((c) => c.id);

    it("ranks exactly the passing candidates, each once", async () => {
      const ids = rankedIds(await made.grader.grade(group));
      expect([...ids].sort()).toEqual(passing(group).sort());
    });

    it("does not throw on a passing candidate whose patch does not apply", async () => {
      const stale = { ...group, candidates: group.candidates.map((c) => ({ ...c, patch: PATCH_STALE })) };
      const ids = rankedIds(await made.grader.grade(stale));
      expect([...ids].sort()).toEqual(passing(stale).sort());
    });

    it("does not throw when its model server fails (graders that ask a model)", async () => {
      if (!made.failingModel) return;
      const ranking = await made.failingModel.grade(group);
      expect([...rankedIds(ranking)].sort()).toEqual(passing(group).sort());
      expect(ranking.grader.fallback).toBeDefined();
    });

    it("ranks the same candidates the same way whatever their order and ids", async () => {
      const rename = (id: string) => `renamed-${[...id].reverse().join("")}`;
      const back = new Map(group.candidates.map((c) => [rename(c.id), c.id]));
      const moved = {
        ...group,
        candidates: [...group.candidates].reverse().map((c) => ({ ...c, id: rename(c.id) })),
      };
      const first = (await made.grader.grade(group)).ranking;
      const second = (await made.grader.grade(moved)).ranking.map((tier) => tier.map((id) => back.get(id)!));
      const asSets = (tiers: string[][]) => tiers.map((tier) => [...tier].sort());
      expect(asSets(second)).toEqual(asSets(first));
    });
  });
}
