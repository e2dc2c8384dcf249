import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { InputError } from "../../errors.ts";

/**
 * The trusted snapshot of a task's repository: a private copy of `repo/` that every candidate's
 * workspace is layered on (workspace.ts) and that no sandbox ever sees writable.
 *
 * Built once per task per verifier session. It leaves out what must not reach a workspace:
 * `.git` at any depth (history leaks the fix, E2; hooks and config are code, A5/F4), `__pycache__`
 * and `*.pyc`/`*.pyo` (stale bytecode can overrule restored sources, C5). Symlinks are kept as
 * symlinks (they resolve inside the sandbox's own root); FIFOs, sockets and devices are refused.
 * Files keep their executable bit; everything is owned by the verifier's user.
 */
export interface Snapshot {
  dir: string;
  /** Every relative path in the snapshot (files, directories, symlinks). */
  paths: Set<string>;
  /** Relative paths of the regular files. */
  files: string[];
  bytes: number;
}

/**
 * A snapshot of a tree that is already trusted and private (an environment's set-up result), without
 * copying. It only lists the tree (no sizes: `bytes` stays 0), which for 50,000 files is one readdir
 * per directory.
 */
export function scanSnapshot(dir: string): Snapshot {
  const snapshot: Snapshot = { dir, paths: new Set(), files: [], bytes: 0 };
  const walk = (from: string, prefix: string) => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const rel = prefix + entry.name;
      snapshot.paths.add(rel);
      if (entry.isDirectory()) walk(join(from, entry.name), `${rel}/`);
      else if (entry.isFile()) snapshot.files.push(rel);
    }
  };
  walk(dir, "");
  return snapshot;
}

export function buildSnapshot(repoDir: string, dest: string): Snapshot {
  const snapshot: Snapshot = { dir: dest, paths: new Set(), files: [], bytes: 0 };
  mkdirSync(dest, { recursive: true, mode: 0o755 });
  const walk = (from: string, to: string, prefix: string) => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const name = entry.name;
      if (name === ".git" || name === "__pycache__" || name.endsWith(".pyc") || name.endsWith(".pyo"))
        continue;
      const source = join(from, name);
      const target = join(to, name);
      const rel = prefix + name;
      const info = lstatSync(source);
      if (info.isDirectory()) {
        mkdirSync(target, { mode: 0o755 });
        chmodSync(target, 0o755);
        snapshot.paths.add(rel);
        walk(source, target, `${rel}/`);
      } else if (info.isFile()) {
        copyFileSync(source, target, constants.COPYFILE_FICLONE);
        chmodSync(target, info.mode & 0o111 ? 0o755 : 0o644);
        snapshot.paths.add(rel);
        snapshot.files.push(rel);
        snapshot.bytes += info.size;
      } else if (info.isSymbolicLink()) {
        symlinkSync(readlinkSync(source), target);
        snapshot.paths.add(rel);
      } else {
        throw new InputError({ file: source }, "repositories may hold only files, directories and symlinks");
      }
    }
  };
  walk(repoDir, dest, "");
  return snapshot;
}
