import { describe, expect, it } from "vitest";
import { computeGroupAdvantages } from "../advantage/group-advantages.ts";
import { batchRowsFromStore } from "../batch/from-store.ts";
import { DEFAULTS } from "../config/defaults.ts";
import { memoryStore, ranking, verdict } from "../store/testing/fixtures.ts";
import { assembleStep, gradingNeeded, recordStep, type StepData, stepGroups } from "./service-step.ts";

const DIGEST = "a".repeat(64);
const unit = (taskId: string, patch: string) => ({
  taskId,
  digest: DIGEST,
  patch,
  protectedPolicy: "strip" as const,
});

/** Two groups: calc with two passes and a failure, ini with two failures. */
const data: StepData = {
  units: [
    unit("calc", "fix-a"),
    unit("calc", "fix-b"),
    unit("calc", "broken"),
    unit("ini", "x"),
    unit("ini", "y"),
  ],
  groups: [
    {
      id: "g-calc",
      task: { id: "calc", statement: "divide by zero", language: "python" },
      digest: DIGEST,
      candidates: [
        { id: "a", unit: 0, trajectory: { tokens: 900, turns: 4 } },
        { id: "b", unit: 1, trajectory: { tokens: 1800, turns: 9 } },
        { id: "c", unit: 2, trajectory: { tokens: 700, turns: 3 } },
      ],
    },
    {
      id: "g-ini",
      task: { id: "ini", statement: "delimiters", language: "python" },
      digest: DIGEST,
      candidates: [
        { id: "p", unit: 3, trajectory: { tokens: 100, turns: 1 } },
        { id: "q", unit: 4, trajectory: { tokens: 200, turns: 2 } },
      ],
    },
  ],
  grader: "static",
  graderOptions: {},
  options: { ...DEFAULTS.advantage },
};
const unitVerdicts = [
  verdict("calc", "unit", true),
  verdict("calc", "unit", true),
  verdict("calc", "unit", false),
  verdict("ini", "unit", false),
  verdict("ini", "unit", false),
];

describe("a trainer's step", () => {
  const groups = stepGroups(data, unitVerdicts);
  const rankings = new Map([["g-calc", ranking("g-calc", [["b"], ["a"]])]]);
  const facts = { verifications: { fresh: 5, reused: 0 }, stageMs: { verify: 1, grade: 1, total: 2 } };

  it("keeps informative groups, stamps each candidate's verdict, grades groups with two passes", () => {
    expect(groups.map((g) => [g.group.id, g.kept, g.dropReason])).toEqual([
      ["g-calc", true, undefined],
      ["g-ini", false, "zero-variance"],
    ]);
    expect(groups[0]!.verdicts.map((v) => [v.rolloutId, v.groupId, v.passed])).toEqual([
      ["a", "g-calc", true],
      ["b", "g-calc", true],
      ["c", "g-calc", false],
    ]);
    expect(groups[0]!.group.candidates[1]).toMatchObject({ patch: "fix-b", passed: true, reward: 1 });
    expect(groups.map(gradingNeeded)).toEqual([true, false]);
  });

  it("gives every group the advantages of `gagar advantages`, a dropped one GRPO's zeros", () => {
    const step = assembleStep(data, groups, rankings, facts);
    const expected = computeGroupAdvantages(groups[0]!.group, rankings.get("g-calc"), data.options).rows;
    expect(step.rows.slice(0, 3)).toEqual(expected);
    expect(step.rows.slice(3).map((r) => r.advantage)).toEqual([0, 0]);
    expect(step.groups.map((g) => [g.id, g.kept, g.passed, g.candidates, g.ranking?.ranking])).toEqual([
      ["g-calc", true, 2, 3, [["b"], ["a"]]],
      ["g-ini", false, 0, 2, undefined],
    ]);
    expect(step.verdicts).toHaveLength(5);
    expect(step.metrics).toMatchObject({ groupsKept: 1, groupsGenerated: 2, passRate: 0.4 });
  });

  it("is recorded in the run store as a step whose batch reads back like `gagar run`'s", () => {
    const store = memoryStore();
    const runId = store.createRun({ service: true });
    const step = assembleStep(data, groups, rankings, facts);
    recordStep(store, runId, 0, groups, step);
    const rows = batchRowsFromStore(store, runId, 0);
    expect(rows.map((r) => [r.groupId, r.candidateId, r.advantage, r.tokens])).toEqual(
      step.rows
        .slice(0, 3)
        .map((r, i) => [`${runId}/s0/g-calc`, r.candidateId, r.advantage, [900, 1800, 700][i]]),
    );
    expect(store.getStep(runId, 0)?.status).toBe("done");
    expect(store.findRanking(`${runId}/s0/g-calc`, "static@1")?.groupId).toBe(`${runId}/s0/g-calc`);
    expect(Object.fromEntries(store.taskStats())).toMatchObject({
      calc: { attempts: 3, passes: 2, informativeGroups: 1 },
      ini: { attempts: 2, passes: 0, informativeGroups: 0 },
    });
  });
});
