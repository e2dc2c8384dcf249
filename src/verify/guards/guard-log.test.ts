import { describe, expect, it } from "vitest";
import { parseGuardLog } from "./guard-log.ts";

const record = (r: Record<string, unknown>) => `${JSON.stringify({ g: 1, pid: 7, ...r })}\n`;

describe("guard records", () => {
  it("reads violations as critical findings and notes that a guard started", () => {
    const log = parseGuardLog(
      record({ kind: "start", detail: "pytest guard" }) +
        record({ kind: "test-source-read", detail: "read tests/test_a.py", file: "calc.py", line: 9 }),
    );
    expect(log.started).toBe(true);
    expect(log.violations).toEqual([
      {
        kind: "test-source-read",
        severity: "critical",
        message: "read tests/test_a.py",
        file: "calc.py",
        line: 9,
      },
    ]);
  });

  it("finds a record that code under test tried to bury in a partial line of its own", () => {
    const genuine = record({ kind: "harness-tampering", detail: "json.dumps was replaced" });
    const log = parseGuardLog(`garbage without newline {"g":1,"detail":"${genuine}tail\n`);
    expect(log.violations.map((v) => v.message)).toContain("json.dumps was replaced");
  });

  it("reads an unknown kind as tampering, ignores what is not a record, and reports each violation once", () => {
    const twice = record({ kind: "test-reexec", detail: "ran pytest again" });
    const log = parseGuardLog(
      `${record({ kind: "other", detail: "x" })}not json\n${twice}${twice}{"g":1,"kind":3}\n`,
    );
    expect(log.started).toBe(false);
    expect(log.violations.map((v) => v.kind)).toEqual(["harness-tampering", "test-reexec"]);
  });

  it("keeps an ambiguous record as a major finding, apart from the violations", () => {
    const log = parseGuardLog(
      record({ kind: "test-source-read", detail: "opened a path the test handed it", ambiguous: true }) +
        record({ kind: "test-source-read", detail: "read tests/test_a.py", file: "calc.py", line: 9 }),
    );
    expect(log.violations.map((v) => v.message)).toEqual(["read tests/test_a.py"]);
    expect(log.ambiguous).toEqual([
      { kind: "test-source-read", severity: "major", message: "opened a path the test handed it" },
    ]);
  });
});
