/**
 * Behavioural probes' cost per group, as a ratio to the group's own test time (goal ≤ 1.0): for each
 * task of the example pack, a group of its 8 recorded rollouts is verified in the sandbox one at a time
 * (the group's own test time), then its passing candidates are probed one run at a time (the reference
 * once, again only when a candidate differs from it, each candidate once: src/probe/group-probes.ts). Both are wall times of the same kind of
 * sandbox run on the same machine, measured side by side. The same candidates are then probed again
 * as a later group of the task would be: the reference's runs are reused, the candidates run again.
 *
 *   npx tsx bench/probe.bench.ts
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { GroupProber } from "../src/probe/group-probes.ts";
import { selectBackend } from "../src/sandbox/select.ts";
import { loadTaskPacks } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { report } from "./stats.ts";

const EXAMPLES = join(import.meta.dirname, "..", "examples");
const GROUP_SIZE = 8;

export async function run(): Promise<void> {
  const packs = loadTaskPacks(join(EXAMPLES, "tasks"));
  const verifier = new Verifier({ sandbox: await selectBackend("auto") });
  const prober = new GroupProber(verifier);
  let testMs = 0;
  let probeMs = 0;
  let laterMs = 0;
  try {
    for (const task of readdirSync(join(EXAMPLES, "tasks")).sort()) {
      const pack = packs.get(task)!;
      const rollouts = readFileSync(join(EXAMPLES, "rollouts", `${task}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .slice(0, GROUP_SIZE)
        .map((l) => JSON.parse(l) as { id: string; patch: string });
      await verifier.verify(pack, rollouts[0]!.patch); // the task's snapshot is built once, outside the figures
      await prober.plan(pack);
      let groupTestMs = 0;
      const passing: { id: string; patch: string }[] = [];
      for (const r of rollouts) {
        const t0 = performance.now();
        const outcome = await verifier.verify(pack, r.patch);
        groupTestMs += performance.now() - t0;
        if (outcome.passed) passing.push(r);
      }
      const result = await prober.probe(pack, passing, { budgetMs: 3_600_000, jobs: 1 });
      const later = await prober.probe(pack, passing, { budgetMs: 3_600_000, jobs: 1 });
      testMs += groupTestMs;
      probeMs += result.durationMs;
      laterMs += later.durationMs;
      report(
        `probes, ${task}`,
        `${(result.durationMs / groupTestMs).toFixed(2)}× its test time (goal ≤ 1.0), ${(later.durationMs / groupTestMs).toFixed(2)}× for a later group: ` +
          `${result.probes} probes, ${result.runs} runs in ${(result.durationMs / 1000).toFixed(1)} s (later ${later.runs} in ${(later.durationMs / 1000).toFixed(1)} s); ` +
          `${rollouts.length} verifications in ${(groupTestMs / 1000).toFixed(1)} s`,
      );
    }
    report(
      "probes, example pack",
      `${(probeMs / testMs).toFixed(2)}× the groups' test time for a task's first group, ${(laterMs / testMs).toFixed(2)}× for a later one (goal ≤ 1.0)`,
    );
  } finally {
    await verifier.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
