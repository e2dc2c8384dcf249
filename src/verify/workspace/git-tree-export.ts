import { spawn } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, openSync, symlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { InputError } from "../../errors.ts";
import { forbiddenReason } from "../gate/protected-paths.ts";

/**
 * Writes the tree of `commit` in the git repository `repoDir` to `dest` (which must not exist), with
 * no history: `git ls-tree -r` lists it and `git cat-file --batch` streams every blob exactly as stored.
 *
 * Not `git archive`: archive honours the tree's own `.gitattributes`, so `export-ignore` would drop files
 * (many projects mark tests/ that way) and `export-subst` would rewrite `$Format:…$` placeholders
 * (versioneer's _version.py), i.e. the result would not be the repository at that commit.
 * Symlinks become symlinks (written last, so no file is ever written through one), submodules empty
 * directories. Git runs with no system or global config and no hooks; it only reads objects.
 */

const GIT_ENV = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
};
const GIT_ARGS = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
  path: string;
}

export async function exportTree(repoDir: string, commit: string, dest: string): Promise<{ files: number }> {
  if (!/^[0-9a-fA-F]{4,64}$/.test(commit))
    throw new InputError({ file: repoDir }, `"${commit}" is not a commit id`);
  const sha = (await git(repoDir, ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]))
    .toString()
    .trim();
  if (!sha) throw new InputError({ file: repoDir }, `commit ${commit} is not in this repository`);
  const entries = parseLsTree(await git(repoDir, ["ls-tree", "-r", "-z", "--full-tree", sha]));
  mkdirSync(dest, { mode: 0o755 });
  const blobs = entries.filter((e) => e.type === "blob");
  const contents = new Map<string, Buffer>();
  let files = 0;
  await catFileBatch(repoDir, blobs, (entry, data) => {
    const why = forbiddenReason(entry.path);
    if (why && !why.includes("bytecode") && !why.includes("__pycache__")) {
      throw new InputError(
        { file: repoDir },
        `commit ${commit} has an unsafe path ${JSON.stringify(entry.path)} (${why})`,
      );
    }
    if (entry.mode === "120000") {
      contents.set(entry.path, data);
      return;
    }
    const target = join(dest, entry.path);
    mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
    const fd = openSync(target, "wx", entry.mode === "100755" ? 0o755 : 0o644);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    chmodSync(target, entry.mode === "100755" ? 0o755 : 0o644);
    files++;
  });
  for (const entry of entries) {
    if (entry.type === "commit") mkdirSync(join(dest, entry.path), { recursive: true, mode: 0o755 });
  }
  for (const [path, target] of contents) {
    mkdirSync(dirname(join(dest, path)), { recursive: true, mode: 0o755 });
    symlinkSync(target.toString("utf8"), join(dest, path));
  }
  return { files };
}

function parseLsTree(out: Buffer): TreeEntry[] {
  return out
    .toString("utf8")
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      const [mode, type, sha] = line.slice(0, tab).split(" ");
      return { mode: mode!, type: type!, sha: sha!, path: line.slice(tab + 1) };
    });
}

function git(repoDir: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...GIT_ARGS, "-C", repoDir, ...args], {
      env: GIT_ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", (e) => reject(new InputError({ file: repoDir }, `cannot run git: ${e.message}`)));
    child.on("close", (code) => {
      if (code === 0 || (code === 1 && args.includes("--quiet"))) resolve(Buffer.concat(out));
      else
        reject(new InputError({ file: repoDir }, `git ${args[0]} failed: ${err.trim() || `exit ${code}`}`));
    });
  });
}

/** Streams blob contents from one `git cat-file --batch`, calling `each` in entry order. */
function catFileBatch(
  repoDir: string,
  entries: TreeEntry[],
  each: (entry: TreeEntry, data: Buffer) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...GIT_ARGS, "-C", repoDir, "cat-file", "--batch"], {
      env: GIT_ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    // Chunks are only joined once a whole record is there, so big blobs are not copied per chunk.
    let chunks: Buffer[] = [];
    let length = 0;
    let need = 1;
    let next = 0;
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      child.kill("SIGKILL");
      reject(e);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length < need) return;
      let buffer = Buffer.concat(chunks, length);
      try {
        for (;;) {
          const nl = buffer.indexOf(10);
          if (nl < 0) {
            need = buffer.length + 1;
            break;
          }
          const header = buffer.subarray(0, nl).toString("utf8").split(" ");
          if (header[1] !== "blob")
            throw new InputError({ file: repoDir }, `git cat-file: unexpected "${header.join(" ")}"`);
          const end = nl + 1 + Number(header[2]);
          if (buffer.length < end + 1) {
            need = end + 1;
            break;
          }
          each(entries[next++]!, buffer.subarray(nl + 1, end));
          buffer = buffer.subarray(end + 1);
          need = 1;
        }
        chunks = [buffer];
        length = buffer.length;
      } catch (e) {
        fail(e);
      }
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", (e) => fail(new InputError({ file: repoDir }, `cannot run git: ${e.message}`)));
    child.on("close", (code) => {
      if (failed) return;
      if (code !== 0 || next !== entries.length) {
        reject(new InputError({ file: repoDir }, `git cat-file failed: ${err.trim() || `exit ${code}`}`));
      } else resolve();
    });
    child.stdin.on("error", fail);
    child.stdin.end(entries.map((e) => `${e.sha}\n`).join(""));
  });
}
