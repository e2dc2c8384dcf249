import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AdvantageRow } from "../src/contracts/advantage-row.ts";

const GROUPS = "examples/advantages/groups.jsonl";
const RANKINGS = "examples/advantages/rankings.jsonl";

function gagar(...args: string[]) {
  const result = spawnSync(process.execPath, ["bin/gagar.js", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "gagar-adv-"));
}

describe("gagar advantages", () => {
  it("writes one valid row per candidate and a GRPO-vs-GAGAR summary", () => {
    const dir = scratch();
    const out = join(dir, "adv.jsonl");
    const run = gagar("advantages", GROUPS, "--rankings", RANKINGS, "--out", out);
    expect(run.stderr).toMatch(/GRPO\s+GAGAR/);
    expect(run.code).toBe(0);
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => AdvantageRow.parse(JSON.parse(l)));
    expect(rows).toHaveLength(9);
    const best = rows.find((r) => r.candidateId === "r2")!;
    const worst = rows.find((r) => r.candidateId === "r1")!;
    expect(best.advantage).toBeGreaterThan(best.baseAdvantage);
    expect(worst.advantage).toBeLessThan(worst.baseAdvantage);
  });

  it("prints rows to stdout without --out, and supports the other estimators", () => {
    const run = gagar("advantages", GROUPS, "--estimator", "rloo", "--quiet");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(9);
    expect(run.stderr).not.toMatch(/GAGAR\s+weight/);
  });

  it("takes a trainer's own rankings as just {groupId, ranking}, with the same numbers", () => {
    const dir = scratch();
    const bare = join(dir, "bare.jsonl");
    const lines = readFileSync(RANKINGS, "utf8").trim().split("\n");
    writeFileSync(
      bare,
      lines
        .map((l) => JSON.stringify({ groupId: JSON.parse(l).groupId, ranking: JSON.parse(l).ranking }))
        .join("\n"),
    );
    const full = gagar("advantages", GROUPS, "--rankings", RANKINGS, "--quiet");
    const own = gagar("advantages", GROUPS, "--rankings", bare, "--quiet");
    expect(own.stderr).not.toMatch(/warning|error/);
    expect(own.code).toBe(0);
    expect(own.stdout).toBe(full.stdout);
  });

  const bad: [string, () => string[], RegExp][] = [
    [
      "malformed JSON",
      () => {
        const f = join(scratch(), "g.jsonl");
        writeFileSync(f, `${readFileSync(GROUPS, "utf8")}{"schemaVersion": 1,\n`);
        return ["advantages", f];
      },
      /g\.jsonl:3: not valid JSON/,
    ],
    [
      "a schema violation",
      () => {
        const f = join(scratch(), "g.jsonl");
        const g = JSON.parse(readFileSync(GROUPS, "utf8").split("\n")[0]!);
        g.candidates[2].passed = "yes";
        writeFileSync(f, `${JSON.stringify(g)}\n`);
        return ["advantages", f];
      },
      /g\.jsonl:1 \(field candidates\.2\.passed\)/,
    ],
    ["an unknown estimator", () => ["advantages", GROUPS, "--estimator", "ppo"], /unknown estimator "ppo"/],
    [
      "λ outside [0,1)",
      () => ["advantages", GROUPS, "--lambda", "1"],
      /--lambda.*expected a number in \[0, 1\)/,
    ],
    [
      "a ranking naming an unknown candidate",
      () => {
        const f = join(scratch(), "r.jsonl");
        writeFileSync(f, readFileSync(RANKINGS, "utf8").replace('[["r2"]', '[["r2", "r99"]'));
        return ["advantages", GROUPS, "--rankings", f];
      },
      /r\.jsonl:1 \(field ranking\.0\.1\).*"r99"/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`fails on ${what} with exit 2, a located message and no output file`, () => {
      const argv = args();
      const dir = scratch();
      const run = gagar(...argv, "--out", join(dir, "adv.jsonl"));
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});
