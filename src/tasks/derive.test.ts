import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TestStatus } from "../contracts/verdict.ts";
import { changingIdSuspects, deriveLists, unstableIds, without } from "./derive.ts";

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

describe("ids that change from run to run", () => {
  const at = (time: string) => `tests/test_d.py::TestD::test_invalid[${time} 2026-12-05]`;

  it("are suspected when the base and the reference name a test's parameters differently", () => {
    const before = {
      [at("07:16:33")]: "passed",
      "t.py::test_a[x]": "passed",
      "t.py::test_b": "failed",
    } as const;
    const after = {
      [at("07:16:41")]: "passed",
      "t.py::test_a[x]": "passed",
      "t.py::test_b": "passed",
    } as const;
    expect(changingIdSuspects(before, after)).toEqual([at("07:16:41")]);
    // A test the base never reported (its module did not load) is no suspect: nothing in the base looks like it.
    expect(changingIdSuspects({}, after)).toEqual([]);
    // Without a parameter part, the numbers in an id are what may change.
    expect(changingIdSuspects({ "f.js::took 12 ms": "passed" }, { "f.js::took 15 ms": "passed" })).toEqual([
      "f.js::took 15 ms",
    ]);
  });

  it("are the ids only one of two runs of the reference reported, and leave the lists", () => {
    const first = {
      [at("07:16:41")]: "passed",
      "t.py::test_b": "passed",
      "t.py::test_fmt[yaml]": "passed",
    } as const;
    const second = {
      [at("07:16:50")]: "passed",
      "t.py::test_b": "passed",
      "t.py::test_fmt[yaml]": "passed",
    } as const;
    const unstable = unstableIds(first, second);
    expect(unstable).toEqual([at("07:16:41"), at("07:16:50")]);
    const lists = deriveLists({ "t.py::test_b": "failed", [at("07:16:33")]: "passed" }, first);
    expect(without(lists, unstable)).toEqual({
      failToPass: ["t.py::test_b", "t.py::test_fmt[yaml]"],
      passToPass: [],
      unreached: [],
    });
  });
});
