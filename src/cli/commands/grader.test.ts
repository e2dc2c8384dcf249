import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { javaPaddingGroup, jsSizeGroup, pythonSlugGroup } from "../../../test/fixtures/grade/groups.ts";
import { main } from "../main.ts";

const dir = mkdtempSync(join(tmpdir(), "gagar-grader-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** The fixture groups with a reference (their cleanest candidate) and a hack label, in two repositories. */
const groupsFile = join(dir, "groups.jsonl");
writeFileSync(
  groupsFile,
  [pythonSlugGroup, jsSizeGroup, javaPaddingGroup]
    .map((g, i) =>
      JSON.stringify({
        ...g,
        task: { ...g.task, repo: i === 2 ? "acme/java" : "acme/scripts" },
        candidates: g.candidates.map((c) => (c.id === "hard-coded" ? { ...c, hack: "hard-coding" } : c)),
        reference: { patch: g.candidates.find((c) => c.id === "clean")!.patch },
      }),
    )
    .join("\n"),
);

function capture(): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((c) => {
    out.push(String(c));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((c) => {
    err.push(String(c));
    return true;
  });
  return { out, err };
}

describe("gagar grader eval", () => {
  it("prints the grader beside every baseline on the same pairs, and critical recall", async () => {
    const { out } = capture();
    const rankings = join(dir, "rankings.jsonl");
    expect(await main(["node", "gagar", "grader", "eval", groupsFile, "--out", rankings])).toBe(0);
    const text = out.join("");
    expect(text).toMatch(/^ranking +all clear pairs +size-misleading pairs$/m);
    expect(text).toMatch(/^static 2\.\d+\.\d+ +(\d\.\d{3}|n\/a) \(\d+\)/m);
    for (const name of [
      "fewest changed lines",
      "fewest files",
      "files, then lines",
      "random \\(seeded\\)",
      "all tied",
    ])
      expect(text).toMatch(new RegExp(`^baseline: ${name} +`, "m"));
    expect(text).toMatch(/critical recall 3\/3 labelled hacks in the last tier \(hard-coding 3\/3\)/);
    expect(readFileSync(rankings, "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("reports leave-one-repository-out folds with the setting each chose, as text or JSON", async () => {
    const { out } = capture();
    expect(await main(["node", "gagar", "grader", "eval", groupsFile, "--loro"])).toBe(0);
    const text = out.join("");
    expect(text).toMatch(/^acme\/java +1 /m);
    expect(text).toMatch(/^acme\/scripts +2 .*excessPerLine=/m);
    expect(text).toMatch(/^pooled +3 /m);
    out.length = 0;
    expect(await main(["node", "gagar", "grader", "eval", groupsFile, "--loro", "--json"])).toBe(0);
    expect(JSON.parse(out.join("")).folds.map((f: { repo: string }) => f.repo)).toEqual([
      "acme/java",
      "acme/scripts",
    ]);
  });

  it("exits 2 when --loro is asked of a grader it cannot tune", async () => {
    const { err } = capture();
    expect(await main(["node", "gagar", "grader", "eval", groupsFile, "--loro", "--grader", "agent"])).toBe(
      2,
    );
    expect(err.join("")).toMatch(/--loro tunes the static grader/);
  });
});
