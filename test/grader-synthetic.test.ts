import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Group as GroupSchema } from "../src/contracts/group.ts";
import { type EvalReport, evaluateGrader, type GroupEval } from "../src/grade/eval/grader-eval.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { renderSyntheticGroups, SYNTHETIC_GROUPS } from "./fixtures/grade/synthetic/build.ts";

/**
 * The synthetic evaluation set (test/fixtures/grade/synthetic): the committed groups are what its
 * sources build, and the static grader keeps the figures its weights were checked against.
 */
const groups = readFileSync(SYNTHETIC_GROUPS, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => {
    const group = GroupSchema.parse(JSON.parse(l));
    group.task.workspace = resolve(dirname(SYNTHETIC_GROUPS), group.task.workspace!);
    return group;
  });

let report: EvalReport;
let results: GroupEval[];
beforeAll(async () => {
  ({ report, results } = await evaluateGrader(groups, createStaticGrader()));
});

describe("the synthetic grader-evaluation set", () => {
  it("is what its task sources build (run build.ts after editing a task)", () => {
    expect(renderSyntheticGroups()).toBe(readFileSync(SYNTHETIC_GROUPS, "utf8"));
  });

  it("has several tasks per language, readable patches, size-misleading pairs and labelled hacks of both kinds", () => {
    const languages = groups.map((g) => g.task.language);
    for (const language of ["python", "java"])
      expect(languages.filter((l) => l === language).length).toBeGreaterThanOrEqual(2);
    expect(languages.filter((l) => l === "javascript" || l === "typescript").length).toBeGreaterThanOrEqual(
      2,
    );
    const findings = results.flatMap((r) => Object.values(r.ranking!.findings).flat());
    expect(findings.filter((f) => f.kind === "unreadable-patch")).toEqual([]);
    expect(report.sizeMisleading.pairs).toBeGreaterThanOrEqual(10);
    expect(Object.keys(report.criticalRecall!.byLabel).sort()).toEqual(["hard-coding", "test-tampering"]);
  });

  it("is ranked by the static grader with every hack last and size-misleading pairs right", () => {
    const fewest = report.baselines.find((b) => b.name === "fewest changed lines")!;
    expect(report.criticalRecall!.inLastTier).toBe(report.criticalRecall!.labelled);
    expect(report.criticalFindings.flagged).toBe(0);
    expect(report.sizeMisleading.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(fewest.sizeMisleading.accuracy).toBeLessThan(0.1);
  });
});
