import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GradeRequest } from "../contracts/service.ts";
import { GradeUnit, gradeUnitId } from "../pipeline/work-units.ts";
import { PackCatalog } from "../verify/pack/pack-catalog.ts";
import { type PrepareContext, prepareGrade } from "./prepare-jobs.ts";

const catalog = PackCatalog.load([join(import.meta.dirname, "..", "..", "examples", "tasks")]);

function context(probes?: { budgetSec: number }): PrepareContext {
  return {
    catalog,
    protectedPolicy: "strip",
    checkGrader() {},
    checkEstimator() {},
    ...(probes && { probes }),
  };
}

const request = GradeRequest.parse({
  groups: ["slugify-diacritics", "not-served"].map((task) => ({
    schemaVersion: 1,
    id: `g-${task}`,
    task: { id: task, statement: "", language: "python" },
    candidates: [
      { id: "a", patch: "", passed: true, reward: 1 },
      { id: "b", patch: "", passed: true, reward: 1 },
    ],
  })),
});

describe("grade units of the service", () => {
  it("ask for behavioural probes exactly for the groups whose task pack is served, when the service probes", () => {
    const units = (prepareGrade(request, context({ budgetSec: 30 })).data as { units: unknown[] }).units.map(
      (u) => GradeUnit.parse(u),
    );
    expect(units.map((u) => u.probes)).toEqual([{ budgetSec: 30 }, undefined]);
    const plain = (prepareGrade(request, context()).data as { units: unknown[] }).units.map((u) =>
      GradeUnit.parse(u),
    );
    expect(plain.map((u) => u.probes)).toEqual([undefined, undefined]);
    // A ranking made with probes is another unit than one made without.
    expect(gradeUnitId(units[0]!)).not.toBe(gradeUnitId(plain[0]!));
    expect(gradeUnitId(units[1]!)).toBe(gradeUnitId(plain[1]!));
  });
});
