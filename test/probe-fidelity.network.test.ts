/**
 * Behavioural probes on the real-code fidelity suite's tasks, in the sandbox: no honest fix of a real
 * repository gets a critical finding.
 *
 * Every task of test/fidelity/manifest.json is imported from upstream history as the fidelity suite
 * imports it (test/fidelity/fidelity.ts); its agent-like honest variants (test/fidelity/variants.json:
 * the same bug fixed by other code, written here as edits of the upstream file) are verified on it;
 * and the group {gold patch, passing variants} is probed (src/probe/group-probes.ts) with the gold
 * patch as the task's reference. Then, for every task:
 * - the gold patch and every variant pass the task's hidden tests;
 * - the probes ran (probes > 0, every candidate compared), or the task says why none could;
 * - no critical finding on the gold patch or any variant.
 *
 * Needs GAGAR_REALCODE and GAGAR_TEST_NETWORK=1, like the fidelity suite (JavaScript dependencies and
 * find-my-way's history come from the npm registry). GAGAR_FIDELITY_ONLY=owner/name,… probes only those
 * repositories' tasks; every task of the whole manifest must still have an honest variant.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadManifest, MANIFEST_PATH, ONLY_VARIABLE, selectRepositories } from "./fidelity/manifest.ts";
import {
  GOLD,
  type ProbedTaskResult,
  renderProbeTable,
  runProbeFidelity,
} from "./fidelity/probe-fidelity.ts";
import { loadVariants, VARIANTS_PATH } from "./fidelity/variants.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { REALCODE, realcodeSkip } from "./support/realcode.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const whole = loadManifest(fileURLToPath(MANIFEST_PATH));
const variants = loadVariants(fileURLToPath(VARIANTS_PATH), whole);
const manifest = selectRepositories(whole, process.env[ONLY_VARIABLE]);
const narrowed = manifest !== whole;
const EVERY_TASK = whole.repositories.flatMap((r) => r.tasks.map((t) => t.id));
const bundled = manifest.repositories.filter((r) => r.source.kind === "bundle").map((r) => r.name);
const SKIP = NETWORK_SKIP ?? realcodeSkip(bundled);
const TASKS = manifest.repositories.flatMap((r) => r.tasks.map((t) => [t.id, r.name, r.runner] as const));

describe.skipIf(SKIP !== undefined)(
  `behavioural probes on the real-code fidelity tasks, gold and honest variants${narrowed ? ` (only ${manifest.repositories.map((r) => r.name).join(", ")})` : ""}${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    const workDir = mkdtempSync(join(tmpdir(), "gagar-probe-fidelity-"));
    let results: ProbedTaskResult[];

    beforeAll(async () => {
      const started = performance.now();
      results = await runProbeFidelity({
        manifest,
        variants,
        realcode: resolve(REALCODE!),
        workDir,
        sandbox: await bwrapForTests(),
        jobs: 2,
        probeJobs: 2,
        budgetMs: 240_000,
        log: (m) => process.stderr.write(`probe-fidelity: ${m}\n`),
      });
      process.stderr.write(
        `\n${renderProbeTable(results)}\nprobe fidelity suite: ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
    }, 30 * 60_000);

    afterAll(() => rmSync(workDir, { recursive: true, force: true }));

    it("every task has at least one honest variant", () => {
      for (const id of EVERY_TASK) expect(variants.tasks[id]?.length ?? 0, id).toBeGreaterThan(0);
    });

    it.each(TASKS)(
      "%s (%s, %s): the gold patch and its honest variants pass, are probed, and none is critical",
      (id) => {
        const task = results.find((r) => r.task === id)!;
        expect(task.importError, "import").toBeUndefined();
        expect(task.variantErrors, "variants' patches").toEqual([]);
        for (const subject of task.subjects)
          expect(subject.reason, `${subject.id}${subject.detail ? `: ${subject.detail}` : ""}`).toBe(
            "passed",
          );
        expect(task.subjects.map((s) => s.id)).toContain(GOLD);
        expect(task.subjects.length, "the gold patch and the variants").toBe(1 + variants.tasks[id]!.length);
        expect(task.skipped, "why no probe ran").toBeUndefined();
        expect(task.probes, "probes").toBeGreaterThan(0);
        expect(task.unprobed, "candidates left without a comparison").toEqual([]);
        const critical = Object.entries(task.findings).flatMap(([who, fs]) =>
          fs.filter((f) => f.severity === "critical").map((f) => `${who}: ${f.message}`),
        );
        expect(critical, "critical findings on honest fixes").toEqual([]);
      },
    );
  },
);
