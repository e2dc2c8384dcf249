/**
 * The real-code fidelity suite (issue 23): the verifier must never condemn an honest fix of a real
 * repository, and its guards must only observe.
 *
 * test/fidelity/manifest.json names public repositories nobody here wrote (pytest, mocha, jest, vitest
 * and node:test suites) and upstream bug fixes of each. At test time every task is built from upstream
 * history (gold = the fix's code diff, hidden tests = its test diff, base = its parent; FAIL_TO_PASS and
 * PASS_TO_PASS derived by running) through gagar's own import with `--check`; then
 * - every task: the gold patch passes with no critical finding, and the empty patch fails;
 * - every repository: its whole own test suite gives the same per-test results with the guards and
 *   without them (`VerifierOptions.guards: false`), and the guarded run condemns nothing.
 *
 * Needs GAGAR_REALCODE (git bundles of the repositories; .ci/run sets it) and GAGAR_TEST_NETWORK=1
 * (JavaScript dependencies come from the npm registry in `setup` environments, and one package's
 * history is its published versions). With GAGAR_FIDELITY_DOC=docs/fidelity.md the measured tables are
 * written into that doc. GAGAR_FIDELITY_ONLY=owner/name,… runs only those repositories (then the doc,
 * which shows every repository, is not written, and the coverage test is skipped).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Judged, runFidelity, type SuiteResult, type TaskResult } from "./fidelity/fidelity.ts";
import { loadManifest, MANIFEST_PATH, ONLY_VARIABLE, selectRepositories } from "./fidelity/manifest.ts";
import { renderTables, replaceTables } from "./fidelity/table.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { REALCODE, realcodeSkip } from "./support/realcode.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const whole = loadManifest(fileURLToPath(MANIFEST_PATH));
const manifest = selectRepositories(whole, process.env[ONLY_VARIABLE]);
const narrowed = manifest !== whole;
if (narrowed && process.env.GAGAR_FIDELITY_DOC)
  throw new Error(
    `GAGAR_FIDELITY_DOC writes the tables of every repository: unset ${ONLY_VARIABLE} to write them`,
  );
const bundled = manifest.repositories.filter((r) => r.source.kind === "bundle").map((r) => r.name);
const SKIP = NETWORK_SKIP ?? realcodeSkip(bundled);

const critical = (j: Judged | undefined) => (j?.findings ?? []).filter((f) => f.severity === "critical");
const describeJudged = (j: Judged | undefined) =>
  j
    ? `${j.reason}${j.detail ? ` (${j.detail})` : ""}; findings: ${JSON.stringify(j.findings, null, 1)}`
    : "not run";

describe.skipIf(SKIP !== undefined)(
  `real-code fidelity: ${manifest.repositories.length} public repositories, upstream fixes as tasks${narrowed ? ` (only ${manifest.repositories.map((r) => r.name).join(", ")})` : ""}${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    const workDir = mkdtempSync(join(tmpdir(), "gagar-fidelity-"));
    let results: { tasks: TaskResult[]; suites: SuiteResult[] };

    beforeAll(async () => {
      const started = performance.now();
      results = await runFidelity({
        manifest,
        realcode: resolve(REALCODE!),
        workDir,
        sandbox: await bwrapForTests(),
        jobs: 2,
        log: (m) => process.stderr.write(`fidelity: ${m}\n`),
      });
      const tables = renderTables(results);
      process.stderr.write(
        `\n${tables}\nfidelity suite: ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
      const doc = process.env.GAGAR_FIDELITY_DOC;
      if (doc) writeFileSync(doc, replaceTables(readFileSync(doc, "utf8"), tables));
    }, 45 * 60_000);

    afterAll(() => rmSync(workDir, { recursive: true, force: true }));

    it.skipIf(narrowed)(
      "covers at least 20 tasks of 8 repositories: 4 pytest, and mocha, jest, vitest and node:test",
      () => {
        const runners = new Set(manifest.repositories.map((r) => r.runner));
        expect(manifest.repositories.length).toBeGreaterThanOrEqual(8);
        expect(manifest.repositories.filter((r) => r.runner === "pytest").length).toBeGreaterThanOrEqual(4);
        for (const runner of ["mocha", "jest", "vitest", "node:test"]) expect(runners).toContain(runner);
        expect(results.tasks.length).toBeGreaterThanOrEqual(20);
      },
    );

    it.each(manifest.repositories.flatMap((r) => r.tasks.map((t) => [t.id, r.name] as const)))(
      "%s (%s): imported from upstream history, the gold patch passes with no critical finding and the empty patch fails",
      (id) => {
        const task = results.tasks.find((t) => t.task === id)!;
        expect(task.importError, "import").toBeUndefined();
        expect(task.failToPass).toBeGreaterThan(0);
        expect(task.gold?.reason, `gold: ${describeJudged(task.gold)}\n${task.goldDiagnostics ?? ""}`).toBe(
          "passed",
        );
        expect(critical(task.gold), "critical findings on the gold patch").toEqual([]);
        // Failing tests, or a run that cannot load the base at all (a hidden test importing what the fix
        // adds) or never ends (the bug is a hang): the empty patch fails, and is not accused of anything.
        expect(
          ["tests-failed", "crashed", "timeout"],
          `empty patch: ${describeJudged(task.empty)}`,
        ).toContain(task.empty?.reason);
        expect(task.checkProblems, "tasks import --check").toBeUndefined();
      },
    );

    it.each(manifest.repositories.map((r) => [r.name] as const))(
      "%s: the whole own test suite gives the same per-test results with and without the guards",
      (name) => {
        const suite = results.suites.find((s) => s.repository === name)!;
        expect(suite.error, "the suite ran").toBeUndefined();
        expect(suite.guarded!.tests, "tests reported").toBeGreaterThan(0);
        expect(suite.differences, "tests whose result differs with the guards").toEqual([]);
        expect(suite.guarded!.reason, `guarded run: ${describeJudged(suite.guarded)}`).not.toBe("forged");
        expect(critical(suite.guarded), "critical findings on the unmodified suite").toEqual([]);
      },
    );
  },
);
