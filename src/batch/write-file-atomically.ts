import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Writes bytes to a temp file beside `path`, syncs it and renames it over `path`: readers see the
 * old file or the whole new one, and on any failure — the final rename included — the temp file
 * is removed. Both batch formats are built in memory, so one write suffices.
 */
export function writeFileAtomically(path: string, bytes: Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(4).toString("hex")}`);
  const fd = openSync(tmp, "wx", 0o644);
  try {
    try {
      writeFileSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
