/**
 * Behavioural probes on the example pack (examples/): the recorded rollouts that pass the hidden
 * tests are honest fixes of several styles (minimal, larger, refactored, reformatted…), so the probes
 * must give none of them a critical finding. The reference is run twice (nondeterminism), every
 * passing rollout once, with the real runners outside the sandbox. Which rollouts pass is the pack's
 * own record (`meta.expected`, checked against the hidden tests by scripts/examples/check-pack.mjs).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareProbeRuns } from "../src/probe/compare.ts";
import { planProbes } from "../src/probe/plan.ts";
import { readTree, writeTree } from "./support/probe-fixtures.ts";
import { runProbes } from "./support/probe-harness.ts";

const EXAMPLES = join(import.meta.dirname, "..", "examples");
const root = mkdtempSync(join(tmpdir(), "gagar-probe-examples-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tasks = readdirSync(join(EXAMPLES, "tasks")).sort();

describe("behavioural probes on the example pack", () => {
  it.each(tasks)(
    "give no honest rollout of %s a critical finding",
    async (task) => {
      const dir = join(EXAMPLES, "tasks", task);
      const spec = JSON.parse(readFileSync(join(dir, "task.json"), "utf8")) as { language: string };
      const runner = spec.language === "python" ? "pytest" : "node:test";
      const hidden = readTree(join(dir, "tests"));
      const base = readTree(join(dir, "repo"));
      const plan = await planProbes({ runner, tests: hidden });
      expect(plan.skipped).toEqual([]);
      const workspace = (id: string, patch: string) => {
        const ws = join(root, task, id);
        writeTree(ws, base);
        if (patch.trim()) execFileSync("git", ["apply", "-"], { cwd: ws, input: patch });
        writeTree(ws, new Map([...readTree(ws), ...hidden]));
        return ws;
      };
      const ref = workspace("reference", readFileSync(join(dir, "reference.patch"), "utf8"));
      const reference = [runProbes(ref, plan).run, runProbes(ref, plan).run];
      const rollouts = readFileSync(join(EXAMPLES, "rollouts", `${task}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string; patch: string; meta: { expected: string } });
      const candidates = rollouts
        .filter((r) => r.meta.expected === "pass")
        .map((r) => ({ id: r.id, runs: [runProbes(workspace(r.id, r.patch), plan).run] }));
      expect(candidates.length).toBeGreaterThanOrEqual(5);
      for (const withReference of [true, false]) {
        const comparison = compareProbeRuns({
          probes: plan.probes,
          reference: withReference ? reference : undefined,
          candidates,
        });
        const critical = comparison.candidates.flatMap((c) =>
          c.findings.filter((f) => f.severity === "critical").map((f) => f.message),
        );
        expect(critical).toEqual([]);
      }
    },
    600_000,
  );
});
