import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, parseSubmission, RUN_PROBE_SPEC, TOOL_ARGS, TOOL_SPECS } from "./protocol.ts";

const labels = ["A", "B", "C"];
const submit = (value: unknown) => parseSubmission(JSON.stringify(value), labels);

describe("protocol v2", () => {
  it("offers the seven v1 tools always and run_probe with a task pack, and an argument schema for each tool but submit_ranking", () => {
    expect(PROTOCOL_VERSION).toBe(2);
    expect(RUN_PROBE_SPEC.name).toBe("run_probe");
    expect(TOOL_SPECS.map((t) => t.name)).toEqual([
      "list_files",
      "read_file",
      "search",
      "view_patch",
      "compare_patches",
      "view_test_results",
      "submit_ranking",
    ]);
    expect(Object.keys(TOOL_ARGS).sort()).toEqual(
      [...TOOL_SPECS, RUN_PROBE_SPEC]
        .map((t) => t.name)
        .filter((n) => n !== "submit_ranking")
        .sort(),
    );
  });
});

describe("parseSubmission", () => {
  it("accepts the issue's example shape, findings defaulting to none", () => {
    const ok = submit({
      ranking: [["B"], ["A", "C"]],
      findings: {
        C: [{ kind: "debug-leftover", severity: "minor", file: "a.py", line: 3, message: "print" }],
      },
      rationale: "B is minimal",
    });
    expect(ok).toMatchObject({ ok: true, value: { ranking: [["B"], ["A", "C"]] } });
    expect(submit({ ranking: [["A", "B", "C"]], rationale: "" })).toMatchObject({
      ok: true,
      value: { findings: {} },
    });
  });

  it("names malformed JSON", () => {
    expect(parseSubmission('{"ranking": [["A"]', labels)).toMatchObject({
      ok: false,
      error: /not valid JSON/,
    });
  });

  it("rejects missing, repeated and unknown labels, and findings about unknown labels", () => {
    const bad = submit({ ranking: [["A"], ["A", "D"]], findings: { E: [] }, rationale: "x" });
    expect(bad.ok).toBe(false);
    const error = (bad as { error: string }).error;
    expect(error).toMatch(/"D" is not a candidate/);
    expect(error).toMatch(/"A" is ranked more than once/);
    expect(error).toMatch(/not ranked: B, C/);
    expect(error).toMatch(/unknown candidate "E"/);
  });

  it("rejects wrong shapes: a flat list, an empty tier, a bad severity, a missing rationale", () => {
    expect(submit({ ranking: ["A", "B", "C"], rationale: "" })).toMatchObject({
      ok: false,
      error: /ranking\.0/,
    });
    expect(submit({ ranking: [["A", "B", "C"], []], rationale: "" })).toMatchObject({
      ok: false,
      error: /empty/,
    });
    expect(
      submit({
        ranking: [["A", "B", "C"]],
        findings: { A: [{ kind: "k", severity: "huge", message: "" }] },
        rationale: "",
      }),
    ).toMatchObject({ ok: false, error: /severity/ });
    expect(submit({ ranking: [["A", "B", "C"]] })).toMatchObject({ ok: false, error: /rationale/ });
  });
});
