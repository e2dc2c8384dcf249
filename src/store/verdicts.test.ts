import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { patchSha256 } from "./patch-sha.ts";
import { memoryStore, verdict } from "./testing/fixtures.ts";

describe("verdicts", () => {
  it("are stored once per (task, patch content); the first one wins", () => {
    const store = memoryStore();
    const sha = patchSha256("diff --git a/x b/x");
    const first = verdict("calc", "r1", true, { detail: "first" });
    expect(store.findVerdict("calc", sha)).toBeUndefined();
    expect(store.saveVerdict("calc", sha, first)).toBe(true);
    expect(store.saveVerdict("calc", sha, verdict("calc", "r2", false))).toBe(false);
    expect(store.findVerdict("calc", sha)).toEqual(first);
    expect(store.countVerdicts()).toBe(1);
  });

  it("are keyed by task as well: the same patch on another task is another verification", () => {
    const store = memoryStore();
    const sha = patchSha256("same patch");
    expect(store.saveVerdict("a", sha, verdict("a", "r1", true))).toBe(true);
    expect(store.saveVerdict("b", sha, verdict("b", "r1", false))).toBe(true);
    expect(store.findVerdict("b", sha)?.passed).toBe(false);
    expect(store.countVerdicts()).toBe(2);
  });

  it("keep every field, including findings and loose extra fields", () => {
    const store = memoryStore();
    const v = {
      ...verdict("t", "r1", false, { reason: "forged", detail: "canary passed" }),
      findings: [{ kind: "forged-report", severity: "critical" as const, message: "canary", file: "x.py" }],
      sandbox: "bwrap",
    };
    store.saveVerdict("t", "abc", v);
    expect(store.findVerdict("t", "abc")).toEqual(v);
  });

  it("refuse infra errors, which must be retried rather than cached", () => {
    const store = memoryStore();
    const v = verdict("t", "r1", false, { reason: "infra-error" });
    expect(() => store.saveVerdict("t", "abc", v)).toThrow(InvariantError);
    expect(store.countVerdicts()).toBe(0);
  });

  it("refuse a verdict filed under another task", () => {
    const store = memoryStore();
    expect(() => store.saveVerdict("a", "abc", verdict("b", "r1", true))).toThrow(
      /task "b" saved under task "a"/,
    );
  });
});
