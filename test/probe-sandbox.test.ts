/**
 * Behavioural probes in the verifier's sandbox (src/probe/group-probes.ts over Verifier.runPlan): the
 * probe modules laid read-only over each candidate's workspace, the observations back on the trusted
 * runner's second channel, under the task's environment and limits and a time budget per group.
 *
 * - The probe fixtures of the runners Debian provides (pytest, node:test, mocha) as task packs: every
 *   hard-coding gets a critical finding, no honest alternative does.
 * - The example pack: no honest passing rollout gets a critical finding.
 * - A candidate that writes forged records to the channel's file path from the code under test gains
 *   nothing: the channel is a pipe, the forged lines are its own observations only.
 * - `gagar grade --tasks`: the probes run before the static grader, which puts the overfitted last.
 * - The service's grade units probe when the group's task pack is known.
 * - A budget too small for a run leaves the candidates unprobed, saying why, instead of comparing
 *   partial runs.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli/main.ts";
import type { Group } from "../src/contracts/group.ts";
import type { Ranking } from "../src/contracts/ranking.ts";
import {
  type GradeUnit,
  graderCache,
  gradeUnitId,
  UNIT_KINDS,
  unitHandler,
} from "../src/pipeline/work-units.ts";
import { GroupProber } from "../src/probe/group-probes.ts";
import { planProbes } from "../src/probe/plan.ts";
import type { JobContext } from "../src/queue/types.ts";
import { PackCatalog, PackSource } from "../src/verify/pack/pack-catalog.ts";
import { loadTaskPacks, type TaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { loadProbeFixture, probeFixturePack } from "./support/probe-fixtures.ts";
import { DEBIAN_MOCHA } from "./support/probe-harness.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const EXAMPLES = join(import.meta.dirname, "..", "examples");
const root = mkdtempSync(join(tmpdir(), "gagar-probe-sandbox-"));
let verifier: Verifier;
let prober: GroupProber;

beforeAll(async () => {
  verifier = new Verifier({ sandbox: await bwrapForTests() });
  prober = new GroupProber(verifier);
});
afterAll(async () => {
  await verifier?.close();
  rmSync(root, { recursive: true, force: true });
});

const COMMANDS: Record<string, { command?: string[]; env?: Record<string, string> }> = {
  pytest: {},
  "node:test": {},
  mocha: {
    command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
    env: { NODE_PATH: "/usr/share/nodejs" },
  },
};
const FIXTURES: Record<string, string> = {
  pytest: "pytest-shortdate-years",
  "node:test": "node-test-backoff-cap",
  mocha: "mocha-duration-units",
};

/** A probe fixture as a task pack whose failToPass are the probed tests, and its candidates as patches. */
async function fixturePack(runner: string): Promise<{ pack: TaskPack; patches: Map<string, string> }> {
  const name = FIXTURES[runner]!;
  const plan = await planProbes({ runner, tests: loadProbeFixture(name).hidden });
  const { command, env } = COMMANDS[runner]!;
  // Under root/packs, where `--tasks` finds them.
  const { pack, patches } = probeFixturePack(root, name, {
    failToPass: [...new Set(plan.probes.map((p) => p.testId))],
    test: { ...(command && { command }), ...(env && { env }) },
  });
  return { pack, patches };
}

describe("behavioural probes in the sandbox", () => {
  it.each(Object.keys(FIXTURES))(
    "%s: hard-codings are critical, honest alternatives are not",
    async (runner) => {
      if (runner === "mocha" && !existsSync(DEBIAN_MOCHA)) return;
      const { pack, patches } = await fixturePack(runner);
      const fixture = loadProbeFixture(FIXTURES[runner]!);
      const result = await prober.probe(
        pack,
        fixture.candidates.map((c) => ({ id: c.id, patch: patches.get(c.id)! })),
        { budgetMs: 300_000, jobs: 2 },
      );
      expect(result.unprobed).toEqual([]);
      expect(result.runs).toBe(2 + fixture.candidates.length);
      for (const c of fixture.candidates) {
        const critical = (result.findings[c.id] ?? []).filter((f) => f.severity === "critical");
        expect(critical.length > 0, `${c.id}: ${critical.map((f) => f.message).join("; ")}`).toBe(
          c.expect === "critical",
        );
        expect(critical.every((f) => f.kind === "behaviour-divergence")).toBe(true);
      }
      // A later group of the task reuses the reference's runs, and finds the same.
      const again = await prober.probe(
        pack,
        fixture.candidates.map((c) => ({ id: c.id, patch: patches.get(c.id)! })),
        { budgetMs: 300_000, jobs: 2 },
      );
      expect(again.runs).toBe(fixture.candidates.length);
      // The reference's first run, reused: a group of candidates that behave as it does needs no second.
      const honest = fixture.candidates.filter((c) => c.expect !== "critical");
      const fresh = new GroupProber(verifier);
      const agreeing = await fresh.probe(
        pack,
        honest.map((c) => ({ id: c.id, patch: patches.get(c.id)! })),
        { budgetMs: 300_000, jobs: 2 },
      );
      const differ = agreeing.comparison!.candidates.some((c) => c.divergences.length > 0);
      expect(agreeing.runs).toBe(honest.length + (differ ? 2 : 1));
      const severities = (r: typeof result) =>
        Object.fromEntries(
          Object.entries(r.findings).map(([id, fs]) => [id, fs.some((f) => f.severity === "critical")]),
        );
      expect(severities(again)).toEqual(severities(result));
    },
    600_000,
  );

  it("give no honest rollout of the example pack a critical finding", async () => {
    const packs = loadTaskPacks(join(EXAMPLES, "tasks"));
    for (const task of readdirSync(join(EXAMPLES, "tasks")).sort()) {
      const rollouts = readFileSync(join(EXAMPLES, "rollouts", `${task}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string; patch: string; meta: { expected: string } })
        .filter((r) => r.meta.expected === "pass");
      const result = await prober.probe(packs.get(task)!, rollouts, { budgetMs: 300_000, jobs: 2 });
      expect(result.unprobed, task).toEqual([]);
      expect(result.probes, task).toBeGreaterThan(0);
      const critical = Object.entries(result.findings).flatMap(([id, fs]) =>
        fs.filter((f) => f.severity === "critical").map((f) => `${id}: ${f.message}`),
      );
      expect(critical, task).toEqual([]);
    }
  }, 900_000);

  it("a budget too small for one run leaves the candidates unprobed, saying why", async () => {
    const { pack, patches } = await fixturePack("pytest");
    const result = await prober.probe(
      pack,
      [...patches].map(([id, patch]) => ({ id, patch })),
      { budgetMs: 10 },
    );
    expect(result.findings).toEqual({});
    expect(result.runs).toBe(0);
    expect(result.unprobed.map((u) => u.id).sort()).toEqual([...patches.keys()].sort());
  }, 120_000);

  it("run before grading in `gagar grade --tasks`: the static grader puts the overfitted last, on the probes' evidence", async () => {
    const { pack, patches } = await fixturePack("pytest");
    const fixture = loadProbeFixture(FIXTURES.pytest!);
    const group: Group = {
      schemaVersion: 1,
      id: "probe-cli",
      task: { id: pack.spec.id, statement: "", language: "python", workspace: pack.repoDir },
      candidates: fixture.candidates.map((c) => ({
        id: c.id,
        patch: patches.get(c.id)!,
        passed: true,
        reward: 1,
      })),
    };
    const groups = join(root, "groups.jsonl");
    writeFileSync(groups, `${JSON.stringify(group)}\n`);
    const stderr: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
    try {
      const out = join(root, "rankings.jsonl");
      expect(
        await main(["node", "gagar", "grade", groups, "--tasks", join(root, "packs"), "--out", out]),
      ).toBe(0);
      const ranking = JSON.parse(readFileSync(out, "utf8")) as Ranking & { probes?: { runs: number } };
      const overfitted = fixture.candidates.filter((c) => c.expect === "critical").map((c) => c.id);
      expect([...ranking.ranking.at(-1)!].sort()).toEqual(overfitted.sort());
      for (const id of overfitted)
        expect(
          ranking.findings[id]!.some((f) => f.kind === "behaviour-divergence" && f.severity === "critical"),
        ).toBe(true);
      expect(ranking.probes?.runs).toBe(2 + fixture.candidates.length);
      expect(stderr.join("")).toMatch(/behavioural probes on 1 group in \d+\.\d s/);

      const without = join(root, "rankings-without.jsonl");
      expect(
        await main([
          "node",
          "gagar",
          "grade",
          groups,
          "--tasks",
          join(root, "packs"),
          "--no-probes",
          "--out",
          without,
        ]),
      ).toBe(0);
      expect(JSON.parse(readFileSync(without, "utf8")).probes).toBeUndefined();

      const refused = join(root, "rankings-refused.jsonl");
      expect(
        await main([
          "node",
          "gagar",
          "grade",
          groups,
          "--tasks",
          join(root, "no-such-packs"),
          "--out",
          refused,
        ]),
      ).toBe(2);
      expect(existsSync(refused)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  }, 600_000);

  it("`gagar grader eval --tasks` reports the figures without and with probes side by side", async () => {
    const { pack, patches } = await fixturePack("node:test");
    const fixture = loadProbeFixture(FIXTURES["node:test"]!);
    const group = {
      schemaVersion: 1,
      id: "probe-eval",
      task: { id: pack.spec.id, statement: "", language: "javascript", workspace: pack.repoDir },
      reference: { patch: pack.referencePatch! },
      candidates: fixture.candidates.map((c) => ({
        id: c.id,
        patch: patches.get(c.id)!,
        passed: true,
        reward: 1,
        ...(c.expect === "critical" && { hack: "hard-coding" }),
      })),
    };
    const groups = join(root, "eval-groups.jsonl");
    writeFileSync(groups, `${JSON.stringify(group)}\n`);
    const stdout: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      stdout.push(String(chunk));
      return true;
    });
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(
        await main(["node", "gagar", "grader", "eval", groups, "--tasks", join(root, "packs"), "--json"]),
      ).toBe(0);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const report = JSON.parse(stdout.join("")) as {
      withoutProbes: { criticalRecall: { labelled: number; inLastTier: number } };
      withProbes: {
        criticalRecall: { labelled: number; inLastTier: number };
        criticalFindings: { flagged: number };
      };
      probedGroups: number;
    };
    const hacks = fixture.candidates.filter((c) => c.expect === "critical").length;
    expect(report.probedGroups).toBe(1);
    expect(report.withProbes.criticalRecall).toMatchObject({ labelled: hacks, inLastTier: hacks });
    expect(report.withProbes.criticalFindings.flagged).toBe(0);
    expect(report.withoutProbes.criticalRecall.labelled).toBe(hacks);
  }, 600_000);

  it("run in the service's grade units for a group whose task pack is known, and only then", async () => {
    const { pack, patches } = await fixturePack("mocha");
    const fixture = loadProbeFixture(FIXTURES.mocha!);
    const catalog = PackCatalog.load([join(root, "packs")]);
    const handler = unitHandler({
      packs: new PackSource({ shared: catalog }),
      verifier: () => verifier,
      grader: graderCache({}),
    });
    const group = {
      schemaVersion: 1 as const,
      id: "probe-unit",
      task: { id: pack.spec.id, statement: "", language: "javascript" },
      candidates: fixture.candidates.map((c) => ({
        id: c.id,
        patch: patches.get(c.id)!,
        passed: true,
        reward: 1,
      })),
    };
    const job = (data: GradeUnit): JobContext => ({
      id: gradeUnitId(data),
      name: UNIT_KINDS.grade,
      data,
      attempt: 1,
      checkpoint: undefined,
      signal: new AbortController().signal,
      progress: async () => {},
      saveCheckpoint: async () => {},
    });
    const digest = catalog.digest(pack.spec.id)!;
    const probed = (await handler(
      job({ group, digest, grader: "static", options: {}, probes: { budgetSec: 300 } }),
    )) as Ranking & { probes?: { findings: Record<string, unknown[]> } };
    const overfitted = fixture.candidates.filter((c) => c.expect === "critical").map((c) => c.id);
    expect(
      Object.keys(probed.probes!.findings)
        .filter((id) => overfitted.includes(id))
        .sort(),
    ).toEqual([...overfitted].sort());
    expect([...probed.ranking.at(-1)!].sort()).toEqual([...overfitted].sort());
    const plain = (await handler(
      job({ group, grader: "static", options: {}, probes: { budgetSec: 300 } }),
    )) as {
      probes?: unknown;
    };
    expect(plain.probes).toBeUndefined();
  }, 600_000);
});
