import { mkdirSync, mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LimitedTmpfs, unmount } from "./mounts.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-mounts-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
const TMPFS_MAGIC = 0x01021994;

describe("LimitedTmpfs", () => {
  it("gives up after a first refusal, says why once, and does not try again", async () => {
    const reasons: string[] = [];
    const tmpfs = new LimitedTmpfs((reason) => reasons.push(reason));
    // A target that does not exist is refused on every host, root or not.
    expect(await tmpfs.mount(join(root, "missing", "a"), 1 << 20, 100)).toBe(false);
    const ok = join(root, "ok");
    mkdirSync(ok);
    expect(await tmpfs.mount(ok, 1 << 20, 100)).toBe(false);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/missing/);
    expect(statfsSync(ok).type).not.toBe(TMPFS_MAGIC);
  });

  it.runIf(isRoot)(
    "mounts with the size asked for, and throws on a failure once mounts have worked",
    async () => {
      const tmpfs = new LimitedTmpfs(() => {
        throw new Error("not expected: mounts work here");
      });
      const target = join(root, "sized");
      mkdirSync(target);
      expect(await tmpfs.mount(target, 4 << 20, 100)).toBe(true);
      try {
        const fs = statfsSync(target);
        expect(fs.type).toBe(TMPFS_MAGIC);
        expect(fs.blocks * fs.bsize).toBe(4 << 20);
        expect(fs.files).toBe(100);
      } finally {
        await unmount(target);
      }
      await expect(tmpfs.mount(join(root, "missing", "b"), 1 << 20, 100)).rejects.toThrow(/mounting/);
    },
  );
});
