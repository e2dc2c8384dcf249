import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packArchive, unpackPack } from "./pack-archive.ts";
import { PackCatalog, PackSource } from "./pack-catalog.ts";
import { packDigest } from "./pack-digest.ts";
import { loadTaskPacks } from "./task-pack.ts";

const EXAMPLES = resolve(import.meta.dirname, "../../../examples/tasks");
const TASK = "tinyini-delimiter";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gagar-packs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of an example task under `dir/<name>/<task>`. */
function copyTask(name: string): string {
  const to = join(dir, name, TASK);
  cpSync(join(EXAMPLES, TASK), to, { recursive: true });
  return to;
}

describe("packDigest", () => {
  it("depends on content only: not on where the folder is, timestamps, history or bytecode", () => {
    const a = copyTask("a");
    const b = copyTask("b");
    mkdirSync(join(b, "repo", ".git"));
    writeFileSync(join(b, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(b, "repo", "tinyini", "__pycache__"));
    writeFileSync(join(b, "repo", "tinyini", "__pycache__", "parser.cpython-311.pyc"), "\0\0");
    expect(packDigest(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(packDigest(b)).toBe(packDigest(a));
  });

  it("changes with any byte, executable bit, new file or symlink target", () => {
    const a = copyTask("a");
    const before = packDigest(a);
    const seen = new Set([before]);
    const change = (edit: () => void) => {
      edit();
      const now = packDigest(a);
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    };
    change(() => writeFileSync(join(a, "tests", "extra.txt"), "x"));
    change(() => writeFileSync(join(a, "tests", "extra.txt"), "y"));
    change(() => chmodSync(join(a, "tests", "extra.txt"), 0o755));
    change(() => symlinkSync("tests/extra.txt", join(a, "link")));
    change(() => {
      rmSync(join(a, "link"));
      symlinkSync("repo", join(a, "link"));
    });
  });
});

describe("pack archives", () => {
  it("round-trip a task folder into a worker's cache with the same digest, leaving out the noise", async () => {
    const a = copyTask("a");
    mkdirSync(join(a, "repo", ".git"));
    writeFileSync(join(a, "repo", ".git", "config"), "[core]\n");
    const digest = packDigest(a);
    const cache = join(dir, "cache");
    mkdirSync(cache);
    const unpacked = await unpackPack(packArchive(a), cache, TASK, digest);
    expect(unpacked).toBe(join(cache, digest, TASK));
    expect(packDigest(unpacked)).toBe(digest);
    expect(readdirSync(join(unpacked, "repo"))).not.toContain(".git");
    expect(readdirSync(cache)).toEqual([digest]);
  });

  it("refuse an archive whose content is not the digest asked for, and leave nothing behind", async () => {
    const a = copyTask("a");
    const cache = join(dir, "cache");
    mkdirSync(cache);
    await expect(unpackPack(packArchive(a), cache, TASK, "0".repeat(64))).rejects.toThrow(
      /has digest [0-9a-f]{64}, not the 0{64} asked for/,
    );
    await expect(
      unpackPack(Readable.from([Buffer.from("not a tar")]), cache, TASK, "1".repeat(64)),
    ).rejects.toThrow(/unpacking task tinyini-delimiter failed/);
    expect(readdirSync(cache)).toEqual([]);
  });
});

describe("PackSource", () => {
  it("uses the shared folder when its content matches, else fetches once by digest and caches", async () => {
    const shared = new PackCatalog(loadTaskPacks(join(copyTask("shared"), "..")));
    copyTask("server");
    writeFileSync(join(dir, "server", TASK, "tests", "newer.txt"), "the service's pack differs\n");
    const serverPacks = new PackCatalog(loadTaskPacks(join(dir, "server")));
    const fetched: string[] = [];
    const fetchArchive = async (digest: string) => {
      fetched.push(digest);
      return packArchive(serverPacks.byDigest(digest)!.dir);
    };
    const source = new PackSource({ shared, cacheDir: join(dir, "cache"), fetchArchive });

    const same = await source.get(TASK, shared.digest(TASK)!);
    expect(same.dir).toBe(join(dir, "shared", TASK));
    const newer = serverPacks.digest(TASK)!;
    expect(newer).not.toBe(shared.digest(TASK));
    const [one, two] = await Promise.all([source.get(TASK, newer), source.get(TASK, newer)]);
    expect(one!.dir).toBe(join(dir, "cache", newer, TASK));
    expect(two).toBe(one);
    expect(fetched).toEqual([newer]);

    // A new process finds the pack in its cache without fetching.
    const later = new PackSource({ cacheDir: join(dir, "cache") });
    expect((await later.get(TASK, newer)).spec.id).toBe(TASK);
    await expect(later.get(TASK, "2".repeat(64))).rejects.toThrow(/not in the shared task folders.*--server/);
  });
});
