import { describe, expect, it } from "vitest";
import { resolveStaticOptions } from "./defaults.ts";
import { type Evidence, toFindings } from "./evidence.ts";

describe("toFindings", () => {
  it("publishes contract findings, worst first, independent of detector order", () => {
    const evidence: Evidence[] = [
      { kind: "todo-marker", file: "b.py", line: 3, message: "todo" },
      { kind: "outside-consensus", file: "a.py", line: 9, lines: 12, message: "scope" },
      { kind: "test-tampering", file: "tests/t.py", line: 1, message: "tamper" },
      { kind: "debug-leftover", file: "a.py", line: 2, message: "print" },
      { kind: "unreadable-patch", message: "unreadable" },
    ];
    const findings = toFindings(evidence, resolveStaticOptions());
    expect(findings.map((f) => f.message)).toEqual(["tamper", "print", "scope", "todo", "unreadable"]);
    expect(findings[0]).toEqual({
      kind: "test-tampering",
      severity: "critical",
      file: "tests/t.py",
      line: 1,
      message: "tamper",
    });
    expect(findings[4]).toEqual({ kind: "unreadable-patch", severity: "minor", message: "unreadable" });
    expect(toFindings([...evidence].reverse(), resolveStaticOptions())).toEqual(findings);
  });
});
