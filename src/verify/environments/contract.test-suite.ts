import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapForTests } from "../../../test/support/sandbox.ts";
import { patchOf, writeTask } from "../../../test/support/task-fixture.ts";
import { loadTaskPack, type TaskPack } from "../pack/task-pack.ts";
import { Verifier } from "../verifier.ts";

/**
 * The contract every environment kind meets, for real in the sandbox: a small pytest or node:test task
 * set in the environment (`EnvironmentFixture`)
 * - passes its reference and fails the empty patch;
 * - runs its tests with the environment's toolchain (the fixture's `probe` test asserts something only
 *   that toolchain has);
 * - is built once: a second session with the same cache takes it from there (buildMs 0);
 * - stays the same for every candidate: what a candidate's code writes over the environment's files (the
 *   root filesystem, what setup installed) is refused or stays in its own workspace; the next candidate
 *   passes as before.
 */
export interface EnvironmentFixture {
  environment: Record<string, unknown>;
  runner: "pytest" | "node:test";
  repo: Record<string, string>;
  tests: Record<string, string>;
  failToPass: string[];
  passToPass: string[];
  fix: Record<string, string>;
  /** A candidate's files whose code, while tested, writes over the environment's files. */
  tamper: Record<string, string>;
  /** Set up the folders the spec refers to (returns the spec's environment, possibly rewritten). */
  before?: (root: string) => Promise<Record<string, unknown>> | Record<string, unknown>;
  after?: () => Promise<void> | void;
  timeoutSec?: number;
}

export function environmentContract(name: string, fixture: () => EnvironmentFixture, skip?: string): void {
  describe.skipIf(skip !== undefined)(
    `environment contract: ${name}${skip ? ` (skipped: ${skip})` : ""}`,
    () => {
      const root = mkdtempSync(join(tmpdir(), "gagar-env-contract-"));
      const cache = join(root, "cache");
      let f: EnvironmentFixture;
      let pack: TaskPack;
      let verifier: Verifier;

      beforeAll(async () => {
        f = fixture();
        const environment = f.before ? await f.before(root) : f.environment;
        const spec = {
          statement: "div(a, 0) must raise ValueError.",
          language: f.runner === "pytest" ? "python" : "javascript",
          test: { runner: f.runner },
          environment,
          failToPass: f.failToPass,
          passToPass: f.passToPass,
          timeoutSec: f.timeoutSec ?? 60,
        };
        pack = loadTaskPack(
          writeTask(join(root, "tasks"), { id: "env-task", spec, repo: f.repo, tests: f.tests }),
        );
        verifier = new Verifier({ sandbox: await bwrapForTests(), environmentCache: cache });
      }, 900_000);
      // Closing removes the session's views of a whole Debian root and the fixture's image copies.
      afterAll(async () => {
        await verifier?.close();
        await f?.after?.();
        rmSync(root, { recursive: true, force: true });
      }, 600_000);

      it("passes the reference and fails the empty patch, with the environment's toolchain", async () => {
        const [fixed, empty] = [
          await verifier.verify(pack, patchOf(f.repo, f.fix)),
          await verifier.verify(pack, ""),
        ];
        expect(fixed.reason, `${fixed.detail}\n${fixed.outputTail}`).toBe("passed");
        expect(empty.reason, `${empty.detail}\n${empty.outputTail}`).toBe("tests-failed");
        for (const id of f.failToPass) expect(empty.tests[id]).toBe("failed");
      }, 900_000);

      it("is built once per digest and taken from the cache by the next session", async () => {
        const first = await verifier.task(pack);
        const again = new Verifier({ sandbox: await bwrapForTests(), environmentCache: cache });
        try {
          const second = await again.task(pack);
          expect(second.environment.digest).toBe(first.environment.digest);
          expect(second.environment.buildMs).toBe(0);
          expect(second.environment.cached).toBe(true);
        } finally {
          await again.close();
        }
      }, 300_000);

      it("stays the same for every candidate", async () => {
        await verifier.verify(pack, patchOf(f.repo, f.tamper));
        const after = await verifier.verify(pack, patchOf(f.repo, f.fix));
        expect(after.reason, `${after.detail}\n${after.outputTail}`).toBe("passed");
      }, 300_000);
    },
  );
}
