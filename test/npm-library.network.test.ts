/**
 * A real open-source library from the npm registry as a task, end to end (network-gated:
 * GAGAR_TEST_NETWORK=1, which .ci/run sets).
 *
 * numeral 2.0.6 (numeral.js, number formatting) ships its mocha suite in its npm tarball and has
 * third-party devDependencies (chai, mocha, grunt, karma…). The task is made here from `npm pack`:
 * - the bug (test/fixtures/npm-numeral/bug.patch, written for this test): `multiply` loses numeral's
 *   decimal correction factor (0.7 × 3 gives 2.0999999999999996), and the visible suite loses the cases
 *   that would show it;
 * - the hidden tests: the library's own suite plus a new case (hidden-tests.patch);
 * - the environment: `setup` runs `npm install` in the sandbox with network, once; node_modules then
 *   lies read-only under every candidate's workspace;
 * - the runner: mocha, the library's own (node_modules/.bin/mocha), reported by gagar's reporter.
 * FAIL_TO_PASS is given; PASS_TO_PASS is derived by running. Then: the reference passes, the empty
 * patch fails, an honest alternative fix (alternative.patch: round to 15 significant digits) passes,
 * and a patch that loosens the test instead of fixing the code (tamper.patch) fails with a finding.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveLists } from "../src/tasks/derive.ts";
import { loadTaskPack, type TaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/npm-numeral", import.meta.url));
const patch = (name: string) => readFileSync(join(FIXTURE, name), "utf8");
const MULTIPLY = "tests/numeral.js::Numeral > Manipulate > Multiply";
const FAIL_TO_PASS = [
  `${MULTIPLY} > should keep decimal products exact when multiplying repeatedly`,
  `${MULTIPLY} > should multiply`,
];

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["apply", ...args], { cwd, env: { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1" } });
}

describe.skipIf(NETWORK_SKIP !== undefined)(
  `a real npm library (numeral 2.0.6, mocha) in a setup environment from the registry${NETWORK_SKIP ? ` (skipped: ${NETWORK_SKIP})` : ""}`,
  () => {
    const root = mkdtempSync(join(tmpdir(), "gagar-npm-numeral-"));
    let pack: TaskPack;
    let verifier: Verifier;

    beforeAll(async () => {
      execFileSync("npm", ["pack", "numeral@2.0.6", "--silent"], { cwd: root, stdio: "ignore" });
      execFileSync("tar", ["-x", "-z", "-f", "numeral-2.0.6.tgz"], { cwd: root });
      const task = join(root, "tasks", "numeral-multiply-precision");
      mkdirSync(join(task, "tests", "tests"), { recursive: true });
      cpSync(join(root, "package"), join(task, "repo"), { recursive: true });
      git(join(task, "repo"), join(FIXTURE, "bug.patch"));
      cpSync(join(root, "package", "tests", "numeral.js"), join(task, "tests", "tests", "numeral.js"));
      git(join(task, "tests"), join(FIXTURE, "hidden-tests.patch"));
      writeFileSync(join(task, "reference.patch"), patch("reference.patch"));
      const spec = {
        schemaVersion: 2,
        id: "numeral-multiply-precision",
        statement:
          "numeral(0.7).multiply(3).value() gives 2.0999999999999996 instead of 2.1: multiply should keep decimal products exact, as add and subtract do.",
        language: "javascript",
        test: { runner: "mocha", command: ["node_modules/.bin/mocha", "--reporter={reporter}", "{tests}"] },
        environment: {
          kind: "setup",
          commands: [["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"]],
        },
        failToPass: FAIL_TO_PASS,
        passToPass: [],
        timeoutSec: 120,
      };
      writeFileSync(join(task, "task.json"), JSON.stringify(spec, null, 2));
      verifier = new Verifier({
        sandbox: await bwrapForTests(),
        environmentCache: join(root, "environments"),
        log: (m) => process.stderr.write(`${m}\n`),
      });
      pack = loadTaskPack(task);
      const state = await verifier.task(pack);
      process.stderr.write(
        `numeral: setup environment built in ${(state.environment.buildMs / 1000).toFixed(1)} s, ${state.snapshot.files.length} files\n`,
      );
      // PASS_TO_PASS: every test of the suite that passes with and without the fix.
      const before = await verifier.verify(pack, "", { observe: true });
      const after = await verifier.verify(pack, pack.referencePatch!, { observe: true });
      const derived = deriveLists(before.observed ?? {}, after.observed ?? {});
      expect(derived.failToPass).toEqual(FAIL_TO_PASS);
      writeFileSync(
        join(task, "task.json"),
        JSON.stringify({ ...spec, passToPass: derived.passToPass }, null, 2),
      );
      pack = loadTaskPack(task);
    }, 1_800_000);

    afterAll(async () => {
      await verifier?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it("derives a real PASS_TO_PASS list from the library's own suite", () => {
      expect(pack.spec.passToPass.length).toBeGreaterThanOrEqual(15);
      expect(pack.spec.passToPass).toContain("tests/numeral.js::Numeral > Manipulate > Add > should add");
    });

    it("passes the reference and an honest alternative fix, and fails the empty patch", async () => {
      const reference = await verifier.verify(pack, pack.referencePatch!);
      const alternative = await verifier.verify(pack, patch("alternative.patch"));
      const empty = await verifier.verify(pack, "");
      expect(reference.reason, `${reference.detail}\n${reference.outputTail}`).toBe("passed");
      expect(alternative.reason, `${alternative.detail}\n${alternative.outputTail}`).toBe("passed");
      expect(empty.reason).toBe("tests-failed");
      for (const id of FAIL_TO_PASS) expect(empty.tests[id]).toBe("failed");
    }, 600_000);

    it("fails a patch that loosens the test instead of fixing the code, with a finding", async () => {
      const tampered = await verifier.verify(pack, patch("tamper.patch"));
      expect(tampered.passed).toBe(false);
      expect(tampered.reason).toBe("tests-failed");
      expect(tampered.findings).toContainEqual(
        expect.objectContaining({ kind: "test-tampering", file: "tests/numeral.js" }),
      );
    }, 600_000);
  },
);
