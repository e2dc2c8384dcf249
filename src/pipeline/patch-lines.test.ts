import { describe, expect, it } from "vitest";
import { changedLines } from "./patch-lines.ts";

describe("changedLines", () => {
  it("counts added and removed lines, not headers", () => {
    const patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n+c\n ctx\n";
    expect(changedLines(patch)).toBe(3);
    expect(changedLines("")).toBe(0);
  });
});
