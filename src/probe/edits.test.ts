import { describe, expect, it } from "vitest";
import { renderSpan, replaceWith } from "./edits.ts";

describe("renderSpan", () => {
  const text = "assert f(99) == 1999";
  const all = { start: 0, end: text.length };

  it("renders nested edits from the inside out", () => {
    const literal = replaceWith({ start: 9, end: 11 }, "98");
    const assertion = {
      span: all,
      render: (inner: (s: { start: number; end: number }) => string) =>
        `check(lambda: (${inner({ start: 7, end: 12 })}))`,
    };
    expect(renderSpan(text, all, [assertion, literal])).toBe("check(lambda: (f(98)))");
  });

  it("puts insertions before edits that start at the same place", () => {
    const insert = replaceWith({ start: 0, end: 0 }, "@probe\n");
    const rename = replaceWith({ start: 0, end: 6 }, "ASSERT");
    expect(renderSpan(text, all, [rename, insert])).toBe("@probe\nASSERT f(99) == 1999");
  });

  it("refuses overlapping edits", () => {
    expect(() =>
      renderSpan(text, all, [
        replaceWith({ start: 0, end: 10 }, "a"),
        replaceWith({ start: 5, end: 12 }, "b"),
      ]),
    ).toThrow(/overlapping/);
  });
});
