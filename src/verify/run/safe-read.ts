import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * Reads a file that sandboxed code could have planted (A7): never follows a symlink in the last
 * component (O_NOFOLLOW), never blocks on a FIFO (O_NONBLOCK), accepts only a regular file, and stops
 * at `capBytes`. The parent directory must be one the sandbox cannot replace (the verifier's own run
 * directory). Returns the reason instead of throwing, because an unreadable report is the candidate's
 * outcome, not an error of the verifier.
 */
export type SafeRead = { ok: true; data: Buffer } | { ok: false; reason: string };

export function safeReadFile(path: string, capBytes: number): SafeRead {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "missing" };
    if (code === "ELOOP") return { ok: false, reason: "is a symlink" };
    return { ok: false, reason: `cannot open (${code ?? (e as Error).message})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { ok: false, reason: "is not a regular file" };
    if (info.size > capBytes)
      return { ok: false, reason: `is ${info.size} bytes, over the ${capBytes}-byte cap` };
    const buffer = Buffer.alloc(Math.min(info.size, capBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > capBytes)
      return { ok: false, reason: `grew past the ${capBytes}-byte cap while being read` };
    return { ok: true, data: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}
