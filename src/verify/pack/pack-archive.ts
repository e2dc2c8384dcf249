import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { SandboxError } from "../../errors.ts";
import { packDigest } from "./pack-digest.ts";

/** The tar options that leave out what is not part of a task (pack-digest.ts `isPackNoise`). */
const EXCLUDES = ["--exclude=.git", "--exclude=__pycache__", "--exclude=*.pyc", "--exclude=*.pyo"];

/**
 * A task folder as a tar stream (GNU tar, which every Linux host has), with the task folder as its
 * one top-level directory: what the service sends a worker that asks for a pack by digest.
 */
export function packArchive(taskDir: string): Readable {
  const tar = spawn(
    "tar",
    [
      "--create",
      "--file=-",
      `--directory=${dirname(taskDir)}`,
      ...EXCLUDES,
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      basename(taskDir),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  tar.stderr.on("data", (d) => {
    stderr += d;
  });
  tar.on("close", (code) => {
    if (code !== 0) tar.stdout.destroy(new SandboxError(`tar of ${taskDir} failed: ${stderr.trim()}`, true));
  });
  return tar.stdout;
}

/**
 * Unpacks a pack archive into `<cacheDir>/<digest>/<taskId>` and returns that folder, after checking
 * that what arrived has the digest asked for. Unpacking happens in a temporary folder renamed into
 * place, so the cache holds whole, checked packs only; if another process put the same pack there
 * first, its copy is used. GNU tar refuses members that climb out of the folder (`..`, absolute
 * paths, paths through a symlink it extracted).
 */
export async function unpackPack(
  archive: Readable,
  cacheDir: string,
  taskId: string,
  digest: string,
): Promise<string> {
  const tmp = mkdtempSync(join(cacheDir, `.incoming-${digest.slice(0, 12)}-`));
  try {
    const tar = spawn("tar", ["--extract", "--file=-", `--directory=${tmp}`, "--no-same-owner"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    tar.stderr.on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => tar.on("close", resolve));
    await pipeline(archive, tar.stdin);
    const code = await exited;
    if (code !== 0) throw new SandboxError(`unpacking task ${taskId} failed: ${stderr.trim()}`, true);
    const top = readdirSync(tmp);
    if (top.length !== 1 || top[0] !== taskId || !statSync(join(tmp, taskId)).isDirectory())
      throw new SandboxError(
        `the pack archive for task ${taskId} holds ${JSON.stringify(top)}, not one "${taskId}/"`,
        false,
      );
    const got = packDigest(join(tmp, taskId));
    if (got !== digest)
      throw new SandboxError(
        `the pack sent for task ${taskId} has digest ${got}, not the ${digest} asked for`,
        false,
      );
    const target = join(cacheDir, digest);
    try {
      renameSync(tmp, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw e;
      rmSync(tmp, { recursive: true, force: true });
    }
    return join(target, taskId);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
