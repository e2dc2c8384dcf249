import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapForTests } from "../../../test/support/sandbox.ts";
import { patchOf, writeTask } from "../../../test/support/task-fixture.ts";
import { loadTaskPack, type TaskPack } from "../pack/task-pack.ts";
import { secretLines } from "../run/output-tail.ts";
import { Verifier } from "../verifier.ts";

/**
 * The contract every test runner adapter meets, run for real in the sandbox against a small project
 * written in the runner's own framework (`RunnerFixture`): a `div` that must reject a zero divisor.
 *
 * - the empty patch fails exactly the failToPass ids, and every passToPass id passes (the id mapping
 *   finds every test the task names);
 * - the reference fix passes, with every id reported `passed`;
 * - every reported test maps back to the id the task uses (`observed`, which import relies on);
 * - a patch whose source code disables the framework's assertion API at import time is `forged`
 *   (the canaries run in the same process as the tests), where the adapter promises that;
 * - a patch that exits the test process at import never passes;
 * - a patch whose code looks the expected behaviour up in the test module that calls it is `forged`
 *   with a `test-source-read` finding (the guard inside the test process, guards/), where the adapter's
 *   framework runs under a guard.
 */
export interface RunnerFixture {
  runner: string;
  language: string;
  command?: string[];
  canaryCommand?: string[];
  env?: Record<string, string>;
  environment?: Record<string, unknown>;
  repo: Record<string, string>;
  tests: Record<string, string>;
  failToPass: string[];
  passToPass: string[];
  /** Files of the honest fix. */
  fix: Record<string, string>;
  /** Files of a candidate that patches the assertion API at import; null where canaries cannot see it. */
  forge: Record<string, string> | null;
  /** Files of a candidate that ends the test process while it loads. */
  exit: Record<string, string>;
  /** Files of a candidate that fixes the bug only when the calling test's source asks for it; null without a guard. */
  readsTests: Record<string, string> | null;
  timeoutSec?: number;
}

export function runnerContract(name: string, fixture: () => RunnerFixture, skip?: string): void {
  describe.skipIf(skip !== undefined)(
    `test runner contract: ${name}${skip ? ` (skipped: ${skip})` : ""}`,
    () => {
      const root = mkdtempSync(join(tmpdir(), "gagar-runner-contract-"));
      let pack: TaskPack;
      let f: RunnerFixture;
      let verifier: Verifier;

      beforeAll(async () => {
        f = fixture();
        const spec: Record<string, unknown> = {
          statement: "div(a, 0) must throw instead of returning Infinity.",
          language: f.language,
          test: {
            runner: f.runner,
            ...(f.command && { command: f.command }),
            ...(f.canaryCommand && { canaryCommand: f.canaryCommand }),
            ...(f.env && { env: f.env }),
          },
          failToPass: f.failToPass,
          passToPass: f.passToPass,
          timeoutSec: f.timeoutSec ?? 60,
        };
        if (f.environment) spec.environment = f.environment;
        pack = loadTaskPack(
          writeTask(root, {
            id: `contract-${f.runner.replace(":", "-")}`,
            spec,
            repo: f.repo,
            tests: f.tests,
          }),
        );
        verifier = new Verifier({
          sandbox: await bwrapForTests(),
          environmentCache: join(root, "environments"),
        });
      }, 600_000);
      afterAll(async () => {
        await verifier?.close();
        rmSync(root, { recursive: true, force: true });
      });

      it("fails the empty patch on exactly the failToPass ids", async () => {
        const outcome = await verifier.verify(pack, "", { observe: true });
        expect(outcome.reason, outcome.outputTail).toBe("tests-failed");
        for (const id of f.failToPass) expect(outcome.tests[id]).toBe("failed");
        for (const id of f.passToPass) expect(outcome.tests[id]).toBe("passed");
        // Why: each failing id with what it reported, and no line of the hidden tests.
        const why = outcome.failureMessages ?? "";
        for (const id of f.failToPass) expect(why, outcome.outputTail).toMatch(messageOf(id));
        for (const line of secretLines(Object.values(f.tests))) expect(why).not.toContain(line);
      }, 300_000);

      it("passes the reference fix, and maps every reported test to the task's ids", async () => {
        const outcome = await verifier.verify(pack, patchOf(f.repo, f.fix), { observe: true });
        expect(outcome.reason, `${outcome.detail}\n${outcome.outputTail}`).toBe("passed");
        expect(Object.keys(outcome.observed ?? {}).sort()).toEqual([...f.failToPass, ...f.passToPass].sort());
      }, 300_000);

      it.skipIf(fixture().forge === null)(
        "calls a run forged when the candidate disables assertions",
        async () => {
          const outcome = await verifier.verify(pack, patchOf(f.repo, f.forge!));
          expect(outcome.reason, `${outcome.detail}\n${outcome.outputTail}`).toBe("forged");
          expect(outcome.findings.map((x) => x.kind)).toContain("result-forgery");
        },
        300_000,
      );

      it.skipIf(fixture().readsTests === null)(
        "calls a run forged when the code under test reads the hidden tests",
        async () => {
          const outcome = await verifier.verify(pack, patchOf(f.repo, f.readsTests!));
          expect(outcome.reason, `${outcome.detail}\n${outcome.outputTail}`).toBe("forged");
          expect(outcome.findings.map((x) => x.kind)).toContain("test-source-read");
        },
        300_000,
      );

      it("never passes a candidate that exits the test process while it loads", async () => {
        const outcome = await verifier.verify(pack, patchOf(f.repo, f.exit));
        expect(outcome.passed).toBe(false);
        expect(["tests-failed", "crashed", "forged"]).toContain(outcome.reason);
      }, 300_000);
    },
  );
}

/** `<id> (failed)` followed by at least one line of its message. */
function messageOf(id: string): RegExp {
  return new RegExp(`(^|\\n)${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(failed\\)\\n  \\S`);
}
