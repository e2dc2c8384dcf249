import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Group } from "../../contracts/group.ts";
import type { Rollout } from "../../contracts/rollout.ts";
import type { Verdict } from "../../contracts/verdict.ts";
import { ConfigError } from "../../errors.ts";
import { loadTaskPacks } from "../pack/task-pack.ts";
import { buildGroups } from "./groups.ts";

const tasks = loadTaskPacks(fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url)));

function verdict(r: Rollout, reason: Verdict["reason"]): Verdict {
  return {
    schemaVersion: 1,
    rolloutId: r.id,
    taskId: r.taskId,
    passed: reason === "passed",
    reason,
    tests: {},
    durationsMs: {},
    findings: [],
  };
}

describe("buildGroups", () => {
  const rollouts: Rollout[] = [
    { id: "r1", taskId: "calc-div-zero", groupId: "g1", patch: "a", trajectory: { turns: 3, tokens: 100 } },
    { id: "r2", taskId: "calc-div-zero", groupId: "g1", patch: "b" },
    { id: "r3", taskId: "stats-mean", patch: "c" },
    { id: "r4", taskId: "calc-div-zero", groupId: "g1", patch: "d" },
  ];
  const reasons: Verdict["reason"][] = ["passed", "tests-failed", "passed", "infra-error"];

  it("groups by group id (or task id), fills passed/reward and skips infra errors", () => {
    const { groups, skipped } = buildGroups(
      rollouts,
      rollouts.map((r, i) => verdict(r, reasons[i]!)),
      tasks,
    );
    expect(skipped).toEqual(["r4"]);
    expect(groups.map((g) => g.id)).toEqual(["g1", "stats-mean"]);
    const [g1] = groups;
    expect(g1!.task).toMatchObject({
      id: "calc-div-zero",
      language: "python",
      workspace: tasks.get("calc-div-zero")!.repoDir,
    });
    expect(g1!.candidates).toEqual([
      { id: "r1", patch: "a", passed: true, reward: 1, trajectory: { turns: 3, tokens: 100 } },
      { id: "r2", patch: "b", passed: false, reward: 0 },
    ]);
    expect(g1).not.toHaveProperty("reference");
    for (const g of groups) expect(Group.safeParse(g).success).toBe(true);
  });

  it("refuses one group id across two tasks", () => {
    const clash: Rollout[] = [
      { id: "a", taskId: "calc-div-zero", groupId: "g", patch: "" },
      { id: "b", taskId: "stats-mean", groupId: "g", patch: "" },
    ];
    expect(() =>
      buildGroups(
        clash,
        clash.map((r) => verdict(r, "passed")),
        tasks,
      ),
    ).toThrow(ConfigError);
  });
});
