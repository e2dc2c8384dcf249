import { describe, expect, it } from "vitest";
import { OUTPUT_TAIL_BYTES, outputExcerpt, outputTail, REDACTED, secretLines } from "./output-tail.ts";

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

describe("outputExcerpt", () => {
  it("keeps an error printed first and the end of a long text after it, saying what was left out", () => {
    const usage = Array.from({ length: 95 }, (_, i) => `npm error usage line ${i} ${"-".repeat(40)}`);
    const stdout = ["npm error code EUSAGE", "npm error Missing: chai@3.5.0 from lock file", ...usage].join(
      "\n",
    );
    const excerpt = outputExcerpt(stdout, "", []);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    const lines = excerpt.split("\n");
    expect(lines.slice(0, 2)).toEqual([
      "npm error code EUSAGE",
      "npm error Missing: chai@3.5.0 from lock file",
    ]);
    expect(lines.at(-1)).toBe(usage.at(-1));
    const marker = lines.find((l) => l.startsWith("[… "))!;
    const left = Number(/\[… (\d+) lines left out …\]/.exec(marker)![1]);
    expect(lines.length - 1 + left).toBe(97);
  });

  it("is the whole output when it fits, and redacts hidden-test lines like the tail", () => {
    expect(outputExcerpt("a\nsecret line here\nb\n", "", ["secret line"])).toBe(`a\n${REDACTED}\nb`);
  });
});
