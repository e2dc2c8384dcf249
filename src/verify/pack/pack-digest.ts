import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../errors.ts";

/** One entry of a task folder, by its path relative to the folder ('/'-separated). */
export type PackEntry =
  | { kind: "dir"; path: string }
  | { kind: "file"; path: string; executable: boolean; sha256: string }
  | { kind: "symlink"; path: string; target: string };

/**
 * What is never part of a task's content: version-control history and Python bytecode, which the
 * verifier's snapshot leaves out too (snapshot.ts), so they cannot change a verdict.
 */
export function isPackNoise(name: string): boolean {
  return name === ".git" || name === "__pycache__" || name.endsWith(".pyc") || name.endsWith(".pyo");
}

/** The task folder's entries, sorted by path (code-unit order), without noise. */
export function packEntries(dir: string): PackEntry[] {
  const entries: PackEntry[] = [];
  const walk = (abs: string, prefix: string) => {
    for (const name of readdirSync(abs).sort()) {
      if (isPackNoise(name)) continue;
      const path = prefix + name;
      const full = join(abs, name);
      const info = lstatSync(full);
      if (info.isDirectory()) {
        entries.push({ kind: "dir", path });
        walk(full, `${path}/`);
      } else if (info.isFile()) {
        const sha256 = createHash("sha256").update(readFileSync(full)).digest("hex");
        entries.push({ kind: "file", path, executable: (info.mode & 0o111) !== 0, sha256 });
      } else if (info.isSymbolicLink()) {
        entries.push({ kind: "symlink", path, target: readlinkSync(full) });
      } else {
        throw new InputError({ file: full }, "task folders may hold only files, directories and symlinks");
      }
    }
  };
  walk(dir, "");
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The content digest of a task folder (SHA-256, hex): equal on every machine for the same
 * task.json, repository, hidden tests and reference patch, whatever their timestamps or owners.
 * Verification results are keyed by it, and workers fetch and check packs by it.
 */
export function packDigest(dir: string): string {
  const hash = createHash("sha256");
  // One JSON array per entry: unambiguous whatever characters a path holds.
  for (const e of packEntries(dir)) {
    if (e.kind === "dir") hash.update(`${JSON.stringify(["d", e.path])}\n`);
    else if (e.kind === "file") hash.update(`${JSON.stringify(["f", e.path, e.executable, e.sha256])}\n`);
    else hash.update(`${JSON.stringify(["l", e.path, e.target])}\n`);
  }
  return hash.digest("hex");
}
