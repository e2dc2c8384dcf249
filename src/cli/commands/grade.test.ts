import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { fixtureGroups, pythonSlugGroup } from "../../../test/fixtures/grade/groups.ts";
import { Ranking } from "../../contracts/ranking.ts";
import { createStaticGrader } from "../../grade/static/grader.ts";
import { main } from "../main.ts";
import { formatRankingTable } from "./grade.ts";

const dir = mkdtempSync(join(tmpdir(), "gagar-grade-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const groupsFile = join(dir, "groups.jsonl");
writeFileSync(groupsFile, fixtureGroups.map((g) => JSON.stringify(g)).join("\n"));

function silenceStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe("gagar grade", () => {
  it("writes one valid Ranking per group, in input order, to --out", async () => {
    const stderr = silenceStderr();
    const out = join(dir, "rankings.jsonl");
    expect(await main(["node", "gagar", "grade", groupsFile, "--grader", "static", "--out", out])).toBe(0);
    const rankings = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Ranking.parse(JSON.parse(l)));
    expect(rankings.map((r) => r.groupId)).toEqual(fixtureGroups.map((g) => g.id));
    expect(rankings[0]!.ranking[0]).toEqual(["clean", "clean-oneliner"]);
    expect(stderr.join("")).toMatch(/graded 3 groups with static/);
  });

  it("writes JSONL to stdout without --out", async () => {
    silenceStderr();
    const chunks: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
    expect(await main(["node", "gagar", "grade", groupsFile])).toBe(0);
    expect(chunks.join("").trim().split("\n")).toHaveLength(3);
  });

  it("applies a --config file and rejects a bad one with exit 2", async () => {
    const stderr = silenceStderr();
    const config = join(dir, "static.json");
    const out = join(dir, "tuned.jsonl");
    writeFileSync(config, JSON.stringify({ weights: { "format-churn": { weight: 0, perLine: 0 } } }));
    expect(await main(["node", "gagar", "grade", groupsFile, "--config", config, "--out", out])).toBe(0);
    const tuned = Ranking.parse(JSON.parse(readFileSync(out, "utf8").split("\n")[0]!));
    expect(tuned.ranking[0]).toEqual(["clean", "clean-oneliner", "reformats-init"]);
    expect(tuned.grader.version).toMatch(/\+[0-9a-f]{8}$/);
    writeFileSync(config, JSON.stringify({ weight: {} }));
    expect(await main(["node", "gagar", "grade", groupsFile, "--config", config, "--out", out])).toBe(2);
    expect(stderr.join("")).toMatch(/static grader options: Unrecognized key: "weight"/);
  });

  it("exits 2 naming the known graders when --grader is unknown, and leaves no output", async () => {
    const stderr = silenceStderr();
    const out = join(dir, "never.jsonl");
    expect(await main(["node", "gagar", "grade", groupsFile, "--grader", "smallest", "--out", out])).toBe(2);
    expect(stderr.join("")).toMatch(/unknown grader "smallest"; known graders: .*static/);
    expect(() => readFileSync(out)).toThrow();
  });

  it("exits 2 with the line number on a malformed group", async () => {
    const stderr = silenceStderr();
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, `${JSON.stringify(pythonSlugGroup)}\n{"schemaVersion": 1, "id": "x"}\n`);
    expect(await main(["node", "gagar", "grade", bad, "--out", join(dir, "bad-out.jsonl")])).toBe(2);
    expect(stderr.join("")).toMatch(/bad\.jsonl:2 \(field task\)/);
  });
});

describe("formatRankingTable", () => {
  it("shows tier, candidate, score and the worst findings", async () => {
    const ranking = await createStaticGrader().grade(pythonSlugGroup);
    const table = formatRankingTable(pythonSlugGroup, ranking);
    expect(table.split("\n")[0]).toBe("group py-slug · task textkit-slug-dashes · 8/9 passed · 5 tiers");
    expect(table).toMatch(/^ {2}tier {2}candidate +score +top findings$/m);
    expect(table).toMatch(/^ +1 {2}clean +0\.00 +-$/m);
    expect(table).toMatch(/^ +5 {2}hard-coded +100\.00 +critical hard-coded-output textkit\/slug\.py:11$/m);
    expect(table).toMatch(
      /commented-out +2\.50 +minor commented-out-code textkit\/slug\.py:11; minor todo-marker textkit\/slug\.py:12$/m,
    );
  });

  it("says so when there is nothing to rank", () => {
    const ranking = {
      schemaVersion: 1 as const,
      groupId: "g",
      ranking: [],
      findings: {},
      grader: { name: "static", version: "1" },
    };
    expect(formatRankingTable(pythonSlugGroup, ranking)).toMatch(
      /0 tiers\n {2}\(no passing candidate to rank\)$/,
    );
  });
});
