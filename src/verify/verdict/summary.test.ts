import { describe, expect, it } from "vitest";
import type { Verdict } from "../../contracts/verdict.ts";
import { summaryRows } from "./summary.ts";

const v = (reason: Verdict["reason"]): Verdict => ({
  schemaVersion: 1,
  rolloutId: "r",
  taskId: "t",
  passed: reason === "passed",
  reason,
  tests: {},
  durationsMs: {},
  findings: [],
});

describe("summaryRows", () => {
  it("lists every reason with its count and share", () => {
    const rows = summaryRows([v("passed"), v("passed"), v("forged"), v("timeout")]);
    expect(rows).toContainEqual(["passed", 2, "50.0%"]);
    expect(rows).toContainEqual(["forged", 1, "25.0%"]);
    expect(rows).toContainEqual(["infra-error", 0, "0.0%"]);
    expect(rows).toHaveLength(8);
  });
});
