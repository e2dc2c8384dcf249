import { describe, expect, it } from "vitest";
import { deriveLists } from "./derive.ts";

describe("deriveLists", () => {
  it("splits the tests that pass with the fix by whether they passed before", () => {
    const before = { a: "failed", b: "passed", c: "passed", d: "skipped", e: "passed" } as const;
    const after = { a: "passed", b: "passed", c: "failed", d: "passed", f: "passed", e: "error" } as const;
    expect(deriveLists(before, after)).toEqual({ failToPass: ["a", "d", "f"], passToPass: ["b"] });
  });
});
