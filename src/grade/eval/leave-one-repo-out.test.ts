import { describe, expect, it } from "vitest";
import { type Group, Group as GroupSchema } from "../../contracts/group.ts";
import type { Grader } from "../types.ts";
import { leaveOneRepoOut, repoOf } from "./leave-one-repo-out.ts";

const NEAR = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -10,1 +10,1 @@\n-x\n+y\n";
const JUNK = `diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,9 @@\n${"+n\n".repeat(9)}`;
const group = (id: string, repo?: string): Group =>
  GroupSchema.parse({
    schemaVersion: 1,
    id,
    task: { id, ...(repo ? { repo } : {}) },
    candidates: [
      { id: "near", patch: NEAR, passed: true },
      { id: "junk", patch: JUNK, passed: true },
    ],
    reference: { patch: NEAR },
  });

/** A grader double whose option `right` decides, per repository of the group, whether it ranks right. */
const tunable = (options: Record<string, unknown>): Grader => ({
  name: "tunable",
  version: "1",
  async grade(g) {
    const right = (options.right as string[]).includes(repoOf(g));
    return {
      schemaVersion: 1,
      groupId: g.id,
      ranking: right ? [["near"], ["junk"]] : [["junk"], ["near"]],
      findings: {},
      grader: { name: "tunable", version: "1" },
    };
  },
});

describe("leaveOneRepoOut", () => {
  it("knows a group's repository from task.repo or from a SWE-style id", () => {
    expect(repoOf(group("x", "acme/lib"))).toBe("acme/lib");
    expect(repoOf(group("google__gson-1703"))).toBe("google__gson");
  });

  it("chooses each fold's setting on the other repositories only, then scores it on the held-out one", async () => {
    // Setting "a" is right for repos a and c, "b" only for b: held-out b is scored with "a", which the others chose.
    const groups = [group("a1", "a"), group("a2", "a"), group("b1", "b"), group("c1", "c")];
    const report = await leaveOneRepoOut(
      groups,
      [
        { label: "a", options: { right: ["a", "c"] } },
        { label: "b", options: { right: ["b"] } },
      ],
      tunable,
    );
    expect(report.folds.map((f) => [f.repo, f.groups, f.chosen, f.all.accuracy])).toEqual([
      ["a", 2, "a", 1],
      ["b", 1, "a", 0],
      ["c", 1, "a", 1],
    ]);
    expect(report.pooled.all).toEqual({ hits: 3, pairs: 4, accuracy: 0.75 });
    expect(report.fewestLines.all.accuracy).toBe(1);
    expect(report.criticalRecall).toBeNull();
  });
});
