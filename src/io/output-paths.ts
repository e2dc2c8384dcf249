import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.ts";

/**
 * Output paths checked before a command does any work, so that hours of sandboxed verification are
 * never lost to a typo in `--out`: the folder must exist and take a new file, and the path must not
 * be a folder. A folder is tried for real (a probe file created and removed at once), since
 * permission bits say nothing for root or on a read-only mount.
 */

/** Fails with a ConfigError naming `flag` unless `path` can be written as a file (created or replaced). */
export function checkOutputFile(path: string, flag: string): void {
  const target = resolve(path);
  const kind = kindOf(target);
  if (kind === "folder")
    throw new ConfigError(`${flag} ${path}: is a folder; give the path of a file to write`);
  if (kind === "other") throw new ConfigError(`${flag} ${path}: exists and is not a regular file`);
  const folder = dirname(target);
  const folderKind = kindOf(folder);
  if (folderKind === "missing")
    throw new ConfigError(`${flag} ${path}: the folder ${dirname(path)} does not exist`);
  if (folderKind !== "folder") throw new ConfigError(`${flag} ${path}: ${dirname(path)} is not a folder`);
  probeWritable(folder, `${flag} ${path}`);
}

/** Several output files of one command: each must be writable, and no two may be the same file. */
export function checkOutputFiles(
  outputs: ReadonlyArray<readonly [flag: string, path: string | undefined]>,
): void {
  const seen = new Map<string, string>();
  for (const [flag, path] of outputs) {
    if (path === undefined) continue;
    checkOutputFile(path, flag);
    const other = seen.get(resolve(path));
    if (other) throw new ConfigError(`${flag} ${path}: the same file as ${other}; give each output its own`);
    seen.set(resolve(path), flag);
  }
}

/**
 * Fails with a ConfigError naming `flag` unless `path` is a writable folder or can be created as one
 * (its nearest existing ancestor is a writable folder).
 */
export function checkOutputDir(path: string, flag: string): void {
  let folder = resolve(path);
  const kind = kindOf(folder);
  if (kind === "folder") {
    probeWritable(folder, `${flag} ${path}`);
    return;
  }
  if (kind !== "missing") throw new ConfigError(`${flag} ${path}: exists and is not a folder`);
  for (;;) {
    const parent = dirname(folder);
    const parentKind = kindOf(parent);
    if (parentKind === "folder") {
      probeWritable(parent, `${flag} ${path}`);
      return;
    }
    if (parentKind !== "missing")
      throw new ConfigError(`${flag} ${path}: cannot create it, ${parent} is not a folder`);
    if (parent === folder) throw new ConfigError(`${flag} ${path}: no existing folder above it`);
    folder = parent;
  }
}

/**
 * What a command created on the way to its outputs (folders, store files), so that a failure removes
 * exactly those and nothing that was there before. Call `keep()` once the outputs are worth keeping.
 */
export class CreatedPaths {
  private readonly paths: string[] = [];

  /** Creates `path` and any missing folders above it; remembers the topmost one it created. */
  folder(path: string): string {
    const top = topMissing(resolve(path));
    mkdirSync(path, { recursive: true });
    if (top) this.paths.push(top);
    return path;
  }

  /** Remembers `path` (and the files named `path` + each suffix) if it does not exist yet: the caller is about to create it. */
  fileToCreate(path: string, suffixes: readonly string[] = []): string {
    for (const p of [path, ...suffixes.map((s) => path + s)]) if (!existsSync(p)) this.paths.push(resolve(p));
    return path;
  }

  /** Removes what was created, newest first. */
  discard(): void {
    for (const p of this.paths.splice(0).reverse()) rmSync(p, { recursive: true, force: true });
  }

  /** The outputs are kept: nothing will be removed. */
  keep(): void {
    this.paths.length = 0;
  }
}

/** The files SQLite creates beside a database in WAL mode. */
export const SQLITE_SIDECARS = ["-wal", "-shm", "-journal"] as const;

type PathKind = "missing" | "folder" | "file" | "other";

function kindOf(path: string): PathKind {
  try {
    const info = statSync(path);
    if (info.isDirectory()) return "folder";
    return info.isFile() ? "file" : "other";
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "missing";
    if (code === "ENOTDIR") return "missing";
    throw e;
  }
}

/** The topmost folder of `path` that does not exist yet, or undefined when `path` exists. */
function topMissing(path: string): string | undefined {
  let top: string | undefined;
  for (let p = path; kindOf(p) === "missing"; p = dirname(p)) {
    top = p;
    if (dirname(p) === p) break;
  }
  return top;
}

function probeWritable(folder: string, what: string): void {
  const probe = join(folder, `.gagar-write-probe-${randomBytes(4).toString("hex")}`);
  try {
    closeSync(openSync(probe, "wx"));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ConfigError(`${what}: cannot write in ${folder} (${err.code ?? err.message})`);
  }
  unlinkSync(probe);
}
