import { describe, expect, it } from "vitest";
import { OUTPUT_TAIL_BYTES, outputTail, REDACTED, secretLines } from "./output-tail.ts";

describe("outputTail", () => {
  const hidden = "# HONEYTOKEN-1\ndef test_x():\n    assert div(1, 0) == 'boom'\n";
  const secrets = secretLines([hidden]);

  it("keeps the last lines, without the runner's ready line", () => {
    const stdout = "gagar-runner: waiting for the candidate\n\ngagar-runner: run pytest\nline 1\nline 2\n";
    expect(outputTail(stdout, "", secrets)).toBe("gagar-runner: run pytest\nline 1\nline 2");
  });

  it("redacts every line that quotes a hidden test", () => {
    const stdout = "E    assert div(1, 0) == 'boom'\nRuntimeError: # HONEYTOKEN-1\n1 failed\n";
    const tail = outputTail(stdout, "", secrets);
    expect(tail).not.toContain("HONEYTOKEN");
    expect(tail).not.toContain("boom");
    expect(tail.split("\n")).toEqual([REDACTED, REDACTED, "1 failed"]);
  });

  it("caps the tail at whole lines and appends stderr", () => {
    const stdout = `${"x".repeat(100)}\n`.repeat(200);
    const tail = outputTail(stdout, "oops\n", []);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(tail.endsWith("[stderr]\noops")).toBe(true);
  });

  it("keeps the end of a last line longer than the cap, cut between characters", () => {
    expect(outputTail(`a\nE ${"x".repeat(5000)}!`, "", [])).toMatch(/^\[…\] x+!$/);
    const tail = outputTail(`a\nE ${"€".repeat(2000)}`, "", []);
    expect(tail).toMatch(/^\[…\] €+$/);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
  });
});
