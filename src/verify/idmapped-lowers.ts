import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findTool } from "../sandbox/host-tools.ts";
import { rememberMount, unmount } from "./mounts.ts";

const run = promisify(execFile);
const HELPER = fileURLToPath(new URL("./idmap-mount.py", import.meta.url));

/**
 * Read-only views of task snapshots in which the sandbox's run uid owns every file (idmapped mounts,
 * made by idmap-mount.py), one per snapshot and uid, made on first use and kept for the session.
 *
 * Why: the run uid must own the workspace. A `chown -R` of the overlay copies every file's metadata up,
 * ~200 ms for 10,000 files here, on every candidate; with the lower layer idmapped, only the (empty)
 * upper directory needs a chown and a workspace costs the same whatever the repository's size. Hosts
 * without idmapped mounts (Linux < 5.12, a filesystem without support, no python3) fall back to the
 * chown, with one warning.
 */
export class IdmappedLowers {
  private readonly views = new Map<string, Promise<string | undefined>>();
  private works: boolean | undefined;

  constructor(private readonly warn: (message: string) => void = () => {}) {}

  /** `snapshotDir` as owned by `uid`, or undefined when this host cannot make idmapped mounts. */
  view(snapshotDir: string, uid: number): Promise<string | undefined> {
    if (this.works === false) return Promise.resolve(undefined);
    const target = `${snapshotDir}-as-${uid}`;
    let view = this.views.get(target);
    if (!view) {
      view = this.mount(snapshotDir, target, uid);
      this.views.set(target, view);
    }
    return view;
  }

  private async mount(source: string, target: string, uid: number): Promise<string | undefined> {
    const python = findTool("python3");
    try {
      if (!python) throw new Error("python3 not found");
      await mkdir(target, { mode: 0o755 });
      await run(python, ["-I", "-S", HELPER, source, target, String(uid)], { env: {} });
      rememberMount(target);
      this.works = true;
      return target;
    } catch (e) {
      const why = String((e as { stderr?: string }).stderr || (e as Error).message).trim();
      if (this.works === undefined) {
        this.works = false;
        this.warn(
          `idmapped mounts unavailable (${why}); each workspace is handed to its sandbox uid with chown -R, whose cost grows with the repository`,
        );
        return undefined;
      }
      throw new Error(`idmapped view of ${source} for uid ${uid} failed: ${why}`);
    }
  }

  /** Whether this host makes idmapped views (tried once on a scratch directory), or why not. */
  static async probe(): Promise<{ ok: boolean; why?: string }> {
    const scratch = await mkdtemp(join(tmpdir(), "gagar-idmap-probe-"));
    let why: string | undefined;
    const lowers = new IdmappedLowers((m) => {
      why = m;
    });
    try {
      await mkdir(join(scratch, "snap"), { mode: 0o755 });
      const view = await lowers.view(join(scratch, "snap"), 61063);
      return view ? { ok: true } : { ok: false, why };
    } catch (e) {
      return { ok: false, why: (e as Error).message };
    } finally {
      await lowers.close();
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** Unmounts every view. */
  async close(): Promise<void> {
    const targets = (await Promise.all(this.views.values())).filter((t): t is string => t !== undefined);
    this.views.clear();
    await unmount(...targets);
  }
}
