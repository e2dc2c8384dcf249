import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountsBelow } from "../session/stale-sessions.ts";
import { MountService, MountServiceGone } from "./mount-service.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-mount-service-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
const TMPFS_MAGIC = 0x01021994;

describe("MountService", () => {
  it("answers a bad request with its reason and keeps serving", async () => {
    const service = new MountService();
    try {
      await expect(service.request({ op: "bogus" } as never)).rejects.toThrow(/unknown op 'bogus'/);
      const target = join(root, "missing", "x");
      await expect(service.request({ op: "tmpfs", target, size: 1 << 20, inodes: 100 })).rejects.toThrow(
        /mount tmpfs: /,
      );
      // Unmounting what is not mounted is not an error (a lazy detach is tried, failures ignored).
      await service.request({ op: "umount", targets: [target] });
    } finally {
      service.stop();
    }
  });

  it("refuses overlay layers whose paths would split the option string", async () => {
    const service = new MountService();
    try {
      await expect(
        service.request({
          op: "overlay",
          target: root,
          lower: `${root}/a,upperdir=/`,
          upper: root,
          work: root,
        }),
      ).rejects.toThrow(/contains ','/);
    } finally {
      service.stop();
    }
  });

  it("fails pending and later requests with MountServiceGone once stopped", async () => {
    const service = new MountService();
    await service.request({ op: "umount", targets: [] });
    service.stop();
    await expect(service.request({ op: "umount", targets: [] })).rejects.toBeInstanceOf(MountServiceGone);
  });

  it.runIf(isRoot)("mounts a size-limited tmpfs and an overlay on it, then unmounts both", async () => {
    const service = new MountService();
    const fs = join(root, "fs");
    mkdirSync(fs);
    const lower = join(root, "lower");
    mkdirSync(lower);
    writeFileSync(join(lower, "a.txt"), "from the lower layer\n");
    try {
      await service.request({ op: "tmpfs", target: fs, size: 4 << 20, inodes: 1000 });
      const info = statfsSync(fs);
      expect(info.type).toBe(TMPFS_MAGIC);
      expect(info.blocks * info.bsize).toBe(4 << 20);
      for (const d of ["upper", "work", "merged"]) mkdirSync(join(fs, d));
      const merged = join(fs, "merged");
      await service.request({
        op: "overlay",
        target: merged,
        lower,
        upper: join(fs, "upper"),
        work: join(fs, "work"),
      });
      writeFileSync(join(merged, "b.txt"), "written through the overlay\n");
      expect(mountsBelow(root)).toEqual([merged, fs]);
      await service.request({ op: "umount", targets: [merged, fs] });
      expect(mountsBelow(root)).toEqual([]);
    } finally {
      service.stop();
    }
  });
});
