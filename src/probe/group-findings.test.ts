import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Finding } from "../contracts/finding.ts";
import type { Group } from "../contracts/group.ts";
import { probeSummaryOf, rankingProbes, withProbeFindings } from "./group-findings.ts";
import { focusOn } from "./group-probes.ts";

const finding = (message: string, severity: Finding["severity"] = "critical"): Finding => ({
  kind: "behaviour-divergence",
  severity,
  file: "tests/test_x.py",
  line: 3,
  message,
});

function group(findings: Record<string, Finding[]>): Group {
  return {
    schemaVersion: 1,
    id: "g",
    task: { id: "t", statement: "s", language: "python", workspace: "/nowhere" },
    candidates: ["a", "b", "c"].map((id) => ({
      id,
      patch: "",
      passed: id !== "c",
      reward: id !== "c" ? 1 : 0,
      trajectory: {},
      ...(findings[id] && { findings: findings[id] }),
    })),
  };
}

describe("probe findings handed on", () => {
  it("are appended to each candidate's own findings once, leaving the group and the others alone", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { maxLength: 4 }),
        fc.array(fc.string(), { maxLength: 4 }),
        (own, probed) => {
          const before = group({ a: own.map((m) => finding(m, "major")) });
          const copy = structuredClone(before);
          const after = withProbeFindings(before, { a: probed.map((m) => finding(m)) });
          expect(before).toEqual(copy);
          const messages = after.candidates[0]!.findings?.map((f) => `${f.severity}:${f.message}`) ?? [];
          expect(messages).toEqual([
            ...own.map((m) => `major:${m}`),
            ...[...new Set(probed)].map((m) => `critical:${m}`),
          ]);
          expect(after.candidates.slice(1)).toEqual(before.candidates.slice(1));
          expect(withProbeFindings(after, { a: probed.map((m) => finding(m)) })).toEqual(after);
        },
      ),
    );
  });

  it("travel with a ranking and come back from it; a ranking without them has none", () => {
    const summary = {
      findings: { a: [finding("x")] },
      probes: 12,
      runs: 4,
      durationMs: 1234.6,
      unprobed: [],
    };
    const stored = JSON.parse(JSON.stringify({ ranking: [["a"]], probes: probeSummaryOf(summary) }));
    expect(rankingProbes(stored)).toEqual({ ...summary, durationMs: 1235 });
    expect(rankingProbes({ ranking: [["a"]] })).toBeUndefined();
    expect(rankingProbes({ probes: "garbage" })).toBeUndefined();
  });
});

describe("the tests whose inputs the sandboxed stage nudges", () => {
  const ids = ["tests/test_a.py::test_one", "tests/test_a.py::test_two", "test/x.test.js::suite > works"];

  it("are the ones failToPass names, by test, parametrized instance or title path", () => {
    const focus = focusOn(["tests/test_a.py::test_two[3-4]", "suite > works"], ids)!;
    expect(ids.filter(focus)).toEqual(["tests/test_a.py::test_two", "test/x.test.js::suite > works"]);
  });

  it("are all of them when failToPass names none", () => {
    expect(focusOn(["tests/test_b.py::test_other"], ids)).toBeUndefined();
    expect(focusOn([], ids)).toBeUndefined();
  });
});
