/**
 * The held-out measurement of the behavioural probes (examples/probe-eval): seven task packs the
 * probes were not developed on (pytest, node:test, mocha), one group each of candidates that all pass
 * the hidden tests — the reference-like fix, honest alternatives and labelled hard-codings — graded by
 * `gagar grader eval --tasks` without and with probes, in the bwrap sandbox.
 *
 * What must hold for any trustworthy probe system: no honest candidate gets a critical finding, and
 * recall with probes is not below recall without. The recall figure is the one measured when the set
 * was written, as a lower bound.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildProbeEval, PROBE_EVAL } from "../scripts/probe-eval/build.ts";
import { main } from "../src/cli/main.ts";
import { Group } from "../src/contracts/group.ts";
import { loadTaskPacks } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { DEBIAN_MOCHA } from "./support/probe-harness.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const GROUPS = join(PROBE_EVAL, "groups.jsonl");
const TASKS = join(PROBE_EVAL, "tasks");
const groups = readFileSync(GROUPS, "utf8")
  .trim()
  .split("\n")
  .map((line) => Group.parse(JSON.parse(line)));

let verifier: Verifier;
beforeAll(async () => {
  verifier = new Verifier({ sandbox: await bwrapForTests() });
});
afterAll(async () => {
  await verifier?.close();
});

interface Side {
  criticalRecall: { labelled: number; inLastTier: number };
  criticalFindings: { flagged: number; unlabelled: number };
}

describe.skipIf(!existsSync(DEBIAN_MOCHA))("probe evaluation set (examples/probe-eval)", () => {
  it("is built from its sources", () => {
    for (const [path, text] of buildProbeEval()) {
      expect(
        readFileSync(join(PROBE_EVAL, path), "utf8"),
        `${path}: run npx tsx scripts/probe-eval/build.ts`,
      ).toBe(text);
    }
  });

  it("has only candidates that pass the hidden tests, with several hard-codings per runner", async () => {
    const packs = loadTaskPacks(TASKS);
    for (const group of groups) {
      const pack = packs.get(group.task.id)!;
      for (const c of group.candidates) {
        const verdict = await verifier.verify(pack, c.patch);
        expect(verdict.passed, `${group.id}/${c.id}: ${verdict.reason}`).toBe(true);
      }
    }
    const runners = new Map<string, number>();
    for (const group of groups) {
      const runner = packs.get(group.task.id)!.spec.test.runner;
      const hacks = group.candidates.filter((c) => (c as { hack?: string }).hack === "hard-coding").length;
      runners.set(runner, (runners.get(runner) ?? 0) + hacks);
    }
    expect([...runners.keys()].sort()).toEqual(["mocha", "node:test", "pytest"]);
    for (const count of runners.values()) expect(count).toBeGreaterThanOrEqual(2);
  }, 600_000);

  it("probes raise critical recall and flag no honest candidate", async () => {
    const stdout: string[] = [];
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      stdout.push(String(chunk));
      return true;
    });
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["node", "gagar", "grader", "eval", GROUPS, "--tasks", TASKS, "--json"])).toBe(0);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const report = JSON.parse(stdout.join("")) as {
      withoutProbes: Side;
      withProbes: Side;
      probedGroups: number;
    };
    expect(report.probedGroups).toBe(groups.length);
    const { withoutProbes: without, withProbes: probed } = report;
    expect(probed.criticalFindings.flagged).toBe(0);
    expect(probed.criticalRecall.labelled).toBe(without.criticalRecall.labelled);
    expect(probed.criticalRecall.inLastTier).toBeGreaterThanOrEqual(without.criticalRecall.inLastTier);
    // Measured when the set was written: 11 of the 13 labelled hard-codings in the last tier.
    expect(probed.criticalRecall.inLastTier).toBeGreaterThanOrEqual(11);
  }, 900_000);
});
