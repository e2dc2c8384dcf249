import { describe, expect, it } from "vitest";
import { canonicalKey, describeValue } from "./values.ts";

describe("observed values", () => {
  it("are the same behaviour up to what honest fixes may differ in", () => {
    const same = (a: unknown, b: unknown) => expect(canonicalKey(a)).toBe(canonicalKey(b));
    const differ = (a: unknown, b: unknown) => expect(canonicalKey(a)).not.toBe(canonicalKey(b));
    same({ t: "int", v: 2 }, { t: "float", v: "2.0" });
    same({ t: "float", v: "0.30000000000000004" }, { t: "num", v: "0.3" });
    same(
      { t: "raised", type: "ValueError", message: "bad year" },
      { t: "raised", type: "ValueError", message: "no" },
    );
    same({ t: "tuple", class: "Point", v: [] }, { t: "tuple", v: [] });
    same(
      {
        t: "dict",
        v: [
          [
            { t: "str", v: "b" },
            { t: "int", v: 1 },
          ],
          [
            { t: "str", v: "a" },
            { t: "int", v: 2 },
          ],
        ],
      },
      {
        t: "dict",
        v: [
          [
            { t: "str", v: "a" },
            { t: "float", v: "2.0" },
          ],
          [
            { t: "str", v: "b" },
            { t: "int", v: 1 },
          ],
        ],
      },
    );
    differ({ t: "raised", type: "ValueError" }, { t: "raised", type: "TypeError" });
    differ(
      {
        t: "list",
        v: [
          { t: "int", v: 1 },
          { t: "int", v: 2 },
        ],
      },
      {
        t: "list",
        v: [
          { t: "int", v: 2 },
          { t: "int", v: 1 },
        ],
      },
    );
    differ({ t: "list", v: [] }, { t: "tuple", v: [] });
    differ({ t: "bool", v: true }, { t: "int", v: 1 });
    differ({ t: "str", v: "1998" }, { t: "int", v: 1998 });
  });

  it("are shown briefly", () => {
    expect(
      describeValue({
        t: "list",
        v: [
          { t: "int", v: 1 },
          { t: "str", v: "a" },
        ],
      }),
    ).toBe('[1, "a"]');
    expect(describeValue({ t: "raised", type: "ValueError", message: "x" })).toBe("raises ValueError");
    expect(
      describeValue({
        t: "object",
        class: "DateRange",
        v: { start: { t: "datetime", class: "date", v: "2024-01-01" } },
      }),
    ).toBe("DateRange(start=date(2024-01-01))");
    expect(describeValue({ t: "str", v: "x".repeat(500) }, 20)).toHaveLength(20);
  });
});
