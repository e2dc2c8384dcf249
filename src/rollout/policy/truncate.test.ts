import { describe, expect, it } from "vitest";
import { truncateMiddle } from "./truncate.ts";

describe("truncateMiddle", () => {
  it("returns text within the cap unchanged", () => {
    expect(truncateMiddle("short", 5)).toBe("short");
  });

  it("keeps a third of the budget from the head and two thirds from the tail, noting the cut", () => {
    const text = `${"a".repeat(100)}${"m".repeat(1000)}${"z".repeat(100)}`;
    const out = truncateMiddle(text, 300);
    expect(out.startsWith("a".repeat(100))).toBe(true);
    expect(out.endsWith("z".repeat(100))).toBe(true);
    expect(out).toContain("[output truncated: 900 bytes omitted]");
    const [head, tail] = out.split(/\n\.\.\. \[.*\] \.\.\.\n/);
    expect(Buffer.byteLength(head!)).toBe(100);
    expect(Buffer.byteLength(tail!)).toBe(200);
  });

  it("never splits a multi-byte character at either cut", () => {
    const text = "é€😀".repeat(200);
    for (const cap of [10, 11, 12, 13, 50, 101]) {
      const out = truncateMiddle(text, cap);
      expect(out).not.toContain("\uFFFD");
      const [head, tail] = out.split(/\n\.\.\. \[.*\] \.\.\.\n/);
      expect(Buffer.byteLength(head!)).toBeLessThanOrEqual(Math.floor(cap / 3));
      expect(Buffer.byteLength(tail!)).toBeLessThanOrEqual(cap - Math.floor(cap / 3));
      const omitted = Number(/(\d+) bytes omitted/.exec(out)![1]);
      expect(Buffer.byteLength(head!) + omitted + Buffer.byteLength(tail!)).toBe(Buffer.byteLength(text));
    }
  });
});
