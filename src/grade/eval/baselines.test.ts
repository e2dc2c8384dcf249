import { describe, expect, it } from "vitest";
import { Group } from "../../contracts/group.ts";
import { BASELINES } from "./baselines.ts";

const file = (path: string, lines: number) =>
  `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,${lines} +1,${lines} @@\n${"-x\n".repeat(lines)}${"+y\n".repeat(lines)}`;

const group = Group.parse({
  schemaVersion: 1,
  id: "g",
  task: { id: "t" },
  candidates: [
    { id: "one-file-big", patch: file("a.py", 5), passed: true },
    { id: "two-files-small", patch: file("a.py", 1) + file("b.py", 1), passed: true },
    { id: "one-file-small", patch: file("a.py", 1), passed: true },
    { id: "same-size", patch: file("c.py", 1), passed: true },
  ],
});
const byName = (name: string) => BASELINES.find((b) => b.name === name)!;

describe("baselines", () => {
  it("rank by changed lines, by files, and by files then lines, equal keys sharing a tier", () => {
    expect(byName("fewest changed lines").rank(group)).toEqual([
      ["one-file-small", "same-size"],
      ["two-files-small"],
      ["one-file-big"],
    ]);
    expect(byName("fewest files").rank(group)).toEqual([
      ["one-file-big", "one-file-small", "same-size"],
      ["two-files-small"],
    ]);
    expect(byName("files, then lines").rank(group)).toEqual([
      ["one-file-small", "same-size"],
      ["one-file-big"],
      ["two-files-small"],
    ]);
    expect(byName("all tied").rank(group)).toEqual([group.candidates.map((c) => c.id)]);
  });

  it("draws random rankings that are reproducible per group", () => {
    const random = byName("random (seeded)");
    expect(random.rank(group)).toEqual(random.rank(group));
    expect(random.rank(group).flat().sort()).toEqual(group.candidates.map((c) => c.id).sort());
  });
});
