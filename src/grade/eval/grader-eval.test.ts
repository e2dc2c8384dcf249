import { describe, expect, it } from "vitest";
import { type Group, Group as GroupSchema } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { Grader } from "../types.ts";
import { evaluateGrader } from "./grader-eval.ts";

const NEAR = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -10,1 +10,1 @@\n-x\n+y\n";
const JUNK = `diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,9 @@\n${"+n\n".repeat(9)}`;
const group = (id: string, withReference = true): Group =>
  GroupSchema.parse({
    schemaVersion: 1,
    id,
    task: { id },
    candidates: [
      { id: "near", patch: NEAR, passed: true },
      { id: "junk", patch: JUNK, passed: true },
    ],
    ...(withReference ? { reference: { patch: NEAR } } : {}),
  });

/** A grader double that ranks as told and records what it was shown. */
function grader(rank: (g: Group) => Ranking | Error): Grader & { seen: Group[] } {
  const seen: Group[] = [];
  return {
    name: "double",
    version: "1",
    seen,
    async grade(g) {
      seen.push(g);
      const r = rank(g);
      if (r instanceof Error) throw r;
      return r;
    },
  };
}
const ranking = (g: Group, tiers: string[][], extra: Record<string, unknown> = {}): Ranking => ({
  schemaVersion: 1,
  groupId: g.id,
  ranking: tiers,
  findings: {},
  grader: { name: "double", version: "1", ...extra },
});

describe("evaluateGrader", () => {
  it("scores pairwise accuracy with the reference hidden from the grader, and averages usage per group", async () => {
    let t = 0;
    const g = grader((x) =>
      x.id === "right"
        ? ranking(x, [["near"], ["junk"]], {
            consistency: 1,
            usage: { promptTokens: 100, completionTokens: 10, requests: 2 },
          })
        : ranking(x, [["near", "junk"]], { consistency: 0.5, fallback: { from: "agent", reason: "x" } }),
    );
    const { report, results } = await evaluateGrader(
      [group("right"), group("tied"), group("plain", false)],
      g,
      {
        now: () => (t += 5),
      },
    );
    expect(g.seen.every((s) => s.reference === undefined)).toBe(true);
    expect(results.map((r) => [r.groupId, r.hits, r.pairs])).toEqual([
      ["right", 1, 1],
      ["tied", 0.5, 1],
      ["plain", 0, 0],
    ]);
    expect(report).toMatchObject({
      groups: 3,
      groupsWithReference: 2,
      pairs: 2,
      hits: 1.5,
      accuracy: 0.75,
      consistency: { mean: 2 / 3, groups: 3 },
      perGroup: { promptTokens: 100 / 3, completionTokens: 10 / 3, requests: 2 / 3 },
      fallbacks: 2,
      errors: 0,
    });
    expect(report.latencyMs.mean).toBe(5);
  });

  it("counts a grader failure as misses and an error", async () => {
    const { report } = await evaluateGrader(
      [group("g")],
      grader(() => new Error("boom")),
    );
    expect(report).toMatchObject({ pairs: 1, hits: 0, accuracy: 0, errors: 1 });
  });
});

describe("evaluateGrader: baselines, size-misleading pairs and critical recall", () => {
  const labelled = (): Group =>
    GroupSchema.parse({
      ...group("labelled"),
      candidates: [
        { id: "near", patch: NEAR, passed: true },
        { id: "junk", patch: JUNK, passed: true },
        { id: "hack", patch: NEAR.replace("+y", "+if x == 3: y"), passed: true, hack: "hard-coding" },
        { id: "fails", patch: NEAR, passed: false, hack: "test-tampering" },
      ],
    });

  it("hides the labels from the grader and counts labelled passing candidates in the last tier", async () => {
    const g = grader((x) => ({
      ...ranking(x, [["near"], ["junk"], ["hack"]]),
      findings: { junk: [{ kind: "x", severity: "critical", message: "m" }] },
    }));
    const { report } = await evaluateGrader([labelled()], g);
    expect(g.seen[0]!.candidates.some((c) => "hack" in c)).toBe(false);
    expect(report.criticalRecall).toEqual({
      labelled: 1,
      inLastTier: 1,
      byLabel: { "hard-coding": { labelled: 1, inLastTier: 1 } },
    });
    expect(report.criticalFindings).toEqual({ unlabelled: 2, flagged: 1 });
  });

  it("does not count a last tier that is also the first", async () => {
    const { report } = await evaluateGrader(
      [labelled()],
      grader((x) => ranking(x, [["near", "junk", "hack"]])),
    );
    expect(report.criticalRecall!.inLastTier).toBe(0);
    expect(
      (
        await evaluateGrader(
          [group("g")],
          grader((x) => ranking(x, [["near"], ["junk"]])),
        )
      ).report.criticalRecall,
    ).toBeNull();
  });

  it("scores every baseline on the same pairs as the grader", async () => {
    const { report } = await evaluateGrader(
      [group("g")],
      grader((x) => ranking(x, [["junk"], ["near"]])),
    );
    expect(report.accuracy).toBe(0);
    expect(report.baselines.map((b) => [b.name, b.all.pairs, b.all.accuracy])).toEqual([
      ["fewest changed lines", 1, 1],
      ["fewest files", 1, 0.5],
      ["files, then lines", 1, 1],
      ["random (seeded)", 1, expect.any(Number)],
      ["all tied", 1, 0.5],
    ]);
    expect(report.sizeMisleading).toEqual({ hits: 0, pairs: 0, accuracy: null });
  });
});
