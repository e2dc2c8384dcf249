import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runStoreContract } from "./contract.test-suite.ts";
import { patchSha256 } from "./patch-sha.ts";
import { openStore } from "./run-store.ts";
import { memoryStore, steppingClock, tempDir, verdict } from "./testing/fixtures.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

runStoreContract({ name: "SQLite in memory", open: () => memoryStore() });

runStoreContract({
  name: "SQLite file",
  open: () => openStore(join(dir, "contract.db"), { now: steppingClock() }),
  reopen: () => openStore(join(dir, "contract.db"), { now: steppingClock(Date.UTC(2026, 5, 1)) }),
});

describe("SqliteRunStore on a file", () => {
  it("lets a second connection read while the first writes in a transaction", () => {
    const file = join(dir, "run.db");
    const writer = openStore(file, { now: steppingClock() });
    const first = writer.createRun({ n: 1 });

    writer.transaction(() => {
      writer.createRun({ n: 2 });
      // Uncommitted: another connection still sees the last commit, and is not blocked.
      const reader = openStore(file, { readonly: true, busyTimeoutMs: 0 });
      expect(reader.latestRun()?.id).toBe(first);
      reader.close();
    });

    const reader = openStore(file, { readonly: true, busyTimeoutMs: 0 });
    expect(reader.latestRun()?.config).toEqual({ n: 2 });
    reader.close();
    writer.close();
  });

  it("lets the writer commit while a reader holds a snapshot (WAL), and the reader then sees it", () => {
    const file = join(dir, "run.db");
    const writer = openStore(file, { now: steppingClock(), busyTimeoutMs: 0 });
    writer.createRun({ n: 1 });
    const reader = openStore(file, { readonly: true, busyTimeoutMs: 0 });

    reader.transaction(() => {
      expect(reader.latestRun()?.config).toEqual({ n: 1 });
      // With a rollback journal this commit would fail with SQLITE_BUSY.
      writer.createRun({ n: 2 });
      expect(reader.latestRun()?.config).toEqual({ n: 1 });
    });
    expect(reader.latestRun()?.config).toEqual({ n: 2 });
    reader.close();
    writer.close();
  });

  it("resumes a killed step: the step, its groups and its verdicts are found again", () => {
    const file = join(dir, "run.db");
    const before = openStore(file);
    const run = before.createRun({ groupSize: 2 });
    const step = before.beginStep(run, 0);
    before.saveGroup(step.id, { id: "g1", taskId: "calc", round: 0 }, [
      { id: "r1", patch: "fix" },
      { id: "r2", patch: "fix" },
    ]);
    before.saveVerdict("calc", patchSha256("fix"), verdict("calc", "r1", true));
    before.close(); // the process dies here, before the step finishes

    const after = openStore(file);
    expect(after.latestRun()?.id).toBe(run);
    const resumed = after.beginStep(run, 0);
    expect(resumed.id).toBe(step.id);
    const [group] = after.getStepGroups(resumed.id);
    const toVerify = group!.candidates.filter((c) => !after.findVerdict(group!.taskId, c.patchSha256));
    expect(toVerify).toEqual([]);
    expect(after.countVerdicts()).toBe(1);
    after.close();
  });
});
