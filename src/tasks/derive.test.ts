import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TestStatus } from "../contracts/verdict.ts";
import { deriveLists } from "./derive.ts";

const STATUS = fc.constantFrom<TestStatus>("passed", "failed", "error", "skipped", "xfail");
const RUN = fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), STATUS);

describe("deriveLists", () => {
  it("splits the tests that pass with the fix by whether they passed before", () => {
    const before = { a: "failed", b: "passed", c: "passed", d: "skipped", e: "passed" } as const;
    const after = { a: "passed", b: "passed", c: "failed", d: "passed", f: "passed", e: "error" } as const;
    expect(deriveLists(before, after)).toEqual({
      failToPass: ["a", "d", "f"],
      passToPass: ["b"],
      unreached: [],
    });
  });

  it("after an unfinished base run, never makes a test it did not reach fail-to-pass", () => {
    // The base hung in test b: a and c were reported, the rest never ran.
    const before = { a: "passed", c: "failed" } as const;
    const after = { a: "passed", b: "passed", c: "passed", d: "passed", e: "failed" } as const;
    expect(deriveLists(before, after, false)).toEqual({
      failToPass: ["c"],
      passToPass: ["a", "b", "d"],
      unreached: ["b", "d"],
    });
  });

  it("lists every test that passes with the fix exactly once, in one list, whatever the base did", () => {
    fc.assert(
      fc.property(RUN, RUN, fc.boolean(), (before, after, finished) => {
        const lists = deriveLists(before, after, finished);
        const passing = Object.keys(after).filter((id) => after[id] === "passed");
        expect([...lists.failToPass, ...lists.passToPass].sort()).toEqual(passing.sort());
        for (const id of lists.failToPass) expect(before[id]).not.toBe("passed");
        for (const id of lists.failToPass) if (!finished) expect(before[id]).toBeDefined();
        for (const id of lists.unreached) expect(before[id]).toBeUndefined();
        if (finished) expect(lists.unreached).toEqual([]);
      }),
    );
  });
});
