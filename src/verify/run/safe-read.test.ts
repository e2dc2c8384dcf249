import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { safeReadFile } from "./safe-read.ts";

const dir = mkdtempSync(join(tmpdir(), "gagar-safe-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("safeReadFile", () => {
  it("reads a regular file", () => {
    writeFileSync(join(dir, "r.xml"), "<testsuites/>");
    expect(safeReadFile(join(dir, "r.xml"), 100)).toEqual({ ok: true, data: Buffer.from("<testsuites/>") });
  });

  it("refuses symlinks, even to readable files", () => {
    writeFileSync(join(dir, "secret"), "s3cret");
    symlinkSync(join(dir, "secret"), join(dir, "link.xml"));
    expect(safeReadFile(join(dir, "link.xml"), 100)).toEqual({ ok: false, reason: "is a symlink" });
  });

  it("returns at once for a FIFO with no writer, and for directories and devices", () => {
    execFileSync("mkfifo", [join(dir, "fifo.xml")]);
    const started = performance.now();
    expect(safeReadFile(join(dir, "fifo.xml"), 100)).toEqual({ ok: false, reason: "is not a regular file" });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(safeReadFile(dir, 100)).toEqual({ ok: false, reason: "is not a regular file" });
    expect(safeReadFile("/dev/zero", 100)).toEqual({ ok: false, reason: "is not a regular file" });
  });

  it("enforces the size cap and reports missing files", () => {
    writeFileSync(join(dir, "big.xml"), "x".repeat(101));
    expect(safeReadFile(join(dir, "big.xml"), 100)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("cap"),
    });
    expect(safeReadFile(join(dir, "nope.xml"), 100)).toEqual({ ok: false, reason: "missing" });
  });
});
