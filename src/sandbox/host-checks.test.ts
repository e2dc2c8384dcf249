import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostPrerequisites, trialRun } from "./host-checks.ts";
import { UidPool } from "./uid-pool.ts";
import { createUnsandboxedBackend } from "./unsandboxed.ts";

const scratch = mkdtempSync(join(tmpdir(), "gagar-hostchecks-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

describe("hostPrerequisites", () => {
  it.runIf(isRoot)("finds nothing missing on this host with a traversable run directory base", async () => {
    chmodSync(scratch, 0o711);
    expect(await hostPrerequisites(new UidPool(), scratch, { userNamespaces: true })).toEqual([]);
  });

  it("explains a run directory base other users cannot traverse, and how to fix it", async () => {
    const closed = join(scratch, "closed");
    mkdirSync(closed, { mode: 0o700 });
    const missing = await hostPrerequisites(new UidPool(), closed, { userNamespaces: false });
    expect(missing).toContainEqual(expect.stringContaining(`chmod o+x ${closed}`));
  });

  it("refuses a uid range that holds real accounts", async () => {
    const missing = await hostPrerequisites(new UidPool({ base: 65534, size: 1 }), tmpdir(), {
      userNamespaces: false,
    });
    expect(missing).toContainEqual(
      expect.stringMatching(/belong to accounts \(nobody \(uid 65534\)\).*choose another uid range/),
    );
  });
});

describe("trialRun", () => {
  it("is empty when /bin/true runs and exits 0", { timeout: 15_000 }, async () => {
    const backend = createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn: () => {} });
    expect(await trialRun(backend)).toEqual([]);
  });
});
