import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRunDir, removeRunDir, sweepStaleRunDirs } from "./run-dir.ts";

const isRoot = process.getuid?.() === 0;

describe("run directories", () => {
  it("are traversable but not listable by others, and removed afterwards", async () => {
    const dir = await makeRunDir(tmpdir());
    expect(statSync(dir).mode & 0o777).toBe(0o711);
    mkdirSync(join(dir, "etc"));
    await removeRunDir(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it("of dead verifiers are swept, those of live ones kept", async () => {
    const base = mkdtempSync(join(tmpdir(), "gagar-rundirs-"));
    try {
      const dead = spawnSync("/bin/true").pid;
      mkdirSync(join(base, `gagar-sandbox-${dead}-abc/etc`), { recursive: true });
      mkdirSync(join(base, `gagar-sandbox-${process.pid}-def`));
      mkdirSync(join(base, "unrelated"));
      await sweepStaleRunDirs(base);
      expect(existsSync(join(base, `gagar-sandbox-${dead}-abc`))).toBe(false);
      expect(existsSync(join(base, `gagar-sandbox-${process.pid}-def`))).toBe(true);
      expect(existsSync(join(base, "unrelated"))).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it.runIf(isRoot)("are left alone while something is mounted below them", async () => {
    const dir = await makeRunDir(tmpdir());
    const point = join(dir, "ws");
    mkdirSync(point);
    expect(spawnSync("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point]).status).toBe(0);
    try {
      await removeRunDir(dir);
      expect(existsSync(point)).toBe(true);
    } finally {
      spawnSync("/usr/bin/umount", [point]);
    }
    await removeRunDir(dir);
    expect(existsSync(dir)).toBe(false);
  });
});
