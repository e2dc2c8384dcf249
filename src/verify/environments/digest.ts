import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

/** sha256 of a file's bytes, read in chunks (root filesystem archives run to hundreds of MB). */
export function fileDigest(path: string): string {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** A short digest of several parts (kind, spec, input digests), for cache folder names. */
export function digestOf(...parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return hash.digest("hex").slice(0, 32);
}
