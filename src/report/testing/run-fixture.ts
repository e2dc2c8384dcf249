import { join } from "node:path";
import { computeGroupAdvantages } from "../../advantage/group-advantages.ts";
import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import { computeStepMetrics } from "../../metrics/step-metrics.ts";
import { STORE_FILE } from "../../pipeline/run-layout.ts";
import { patchSha256 } from "../../store/patch-sha.ts";
import { openStore } from "../../store/run-store.ts";
import { steppingClock, verdict } from "../../store/testing/fixtures.ts";

export const FIXTURE_RUN = "run-fixture";

const patch = (file: string, line: string) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    ${line}\n`;

/** Candidate patches, one of them hostile to a careless page (markup in the code it adds). */
export const FIXTURE_PATCHES = {
  clean: patch("calc.py", "return 2"),
  debug: patch("calc.py", 'print("x"); return 2'),
  hostile: patch("calc.py", "return '</template><script>alert(1)</script>'"),
  wrong: patch("calc.py", "return 3"),
};

/**
 * A store in `dir` with one run of two finished steps written through the store's own methods:
 * step 0 has a kept group (three passes ranked by a grader with findings, one failure) and a
 * dropped all-fail group; step 1 repeats the kept group. Metrics and advantages come from the
 * pipeline's own functions, so the fixture is what a real run records.
 */
export function writeRunFixture(dir: string): string {
  const file = join(dir, STORE_FILE);
  const store = openStore(file, { now: steppingClock(), newRunId: () => FIXTURE_RUN });
  try {
    const runId = store.createRun({ groupSize: 4, grader: "static", out: dir });
    for (const idx of [0, 1]) {
      const step = store.beginStep(runId, idx);
      const kept = `${runId}/s${idx}/r0/calc`;
      const candidates = [
        { id: "calc-r1", patch: FIXTURE_PATCHES.clean, trajectory: { tokens: 1200, turns: 6 } },
        { id: "calc-r2", patch: FIXTURE_PATCHES.debug, trajectory: { tokens: 1900, turns: 9 } },
        { id: "calc-r3", patch: FIXTURE_PATCHES.hostile, trajectory: { tokens: 2500, turns: 11 } },
        { id: "calc-r4", patch: FIXTURE_PATCHES.wrong, trajectory: { tokens: 1000, turns: 5 } },
      ];
      store.saveGroup(step.id, { id: kept, taskId: "calc", round: 0 }, candidates);
      const passed = [true, true, true, false];
      candidates.forEach((c, i) => {
        store.saveVerdict("calc", patchSha256(c.patch), verdict("calc", c.id, passed[i]!));
      });
      const ranking: Ranking = {
        schemaVersion: 1,
        groupId: kept,
        ranking: [["calc-r1"], ["calc-r2"], ["calc-r3"]],
        findings: {
          "calc-r2": [
            { kind: "debug-leftover", severity: "major", file: "calc.py", line: 2, message: "print" },
          ],
          "calc-r3": [
            {
              kind: "hard-coding",
              severity: "critical",
              file: "calc.py",
              line: 2,
              message: "<b>literal</b>",
            },
          ],
        },
        grader: { name: "static", version: "1.0.0" },
      };
      store.saveRanking(kept, "static@1.0.0", ranking);
      store.markGroup(kept, true);
      const group: Group = {
        schemaVersion: 1,
        id: kept,
        task: { id: "calc", statement: "", language: "python" },
        candidates: candidates.map((c, i) => ({
          id: c.id,
          patch: c.patch,
          passed: passed[i]!,
          reward: passed[i] ? 1 : 0,
          trajectory: c.trajectory,
        })),
      };
      const advantage = computeGroupAdvantages(group, ranking, {
        estimator: "grpo",
        scheme: "linear",
        lambda: 0.5,
        preserve: "sequence",
        veto: "none",
      });
      store.saveAdvantages(step.id, advantage.rows);
      let generated = 1;
      if (idx === 0) {
        const dropped = `${runId}/s0/r0/parse`;
        store.saveGroup(step.id, { id: dropped, taskId: "parse", round: 0 }, [
          { id: "parse-r1", patch: FIXTURE_PATCHES.wrong, trajectory: { tokens: 800, turns: 4 } },
          { id: "parse-r2", patch: FIXTURE_PATCHES.wrong, trajectory: { tokens: 900, turns: 4 } },
        ]);
        store.saveVerdict("parse", patchSha256(FIXTURE_PATCHES.wrong), verdict("parse", "parse-r1", false));
        store.markGroup(dropped, false, "all-fail");
        generated = 2;
      }
      store.finishStep(
        step.id,
        computeStepMetrics({
          candidates: group.candidates.map((c) => ({
            groupKept: true,
            passed: c.passed,
            tokens: c.trajectory?.tokens,
            turns: c.trajectory?.turns,
            patchLines: 2,
          })),
          groupsGenerated: generated,
          groupsKept: 1,
          rounds: 1,
          advantages: advantage.rows.map((row, i) => ({
            row,
            passed: group.candidates[i]!.passed,
            tokens: group.candidates[i]!.trajectory!.tokens!,
          })),
          verifications: { fresh: 4, reused: 0 },
          graderCalls: 1,
          graderFallbacks: 0,
          vetoed: 0,
          stageMs: { total: 1234 },
        }),
      );
    }
  } finally {
    store.close();
  }
  return file;
}
