import { cp, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { mountLayered, mountTmpfs, unmount } from "./mounts.ts";
import type { Snapshot } from "./snapshot.ts";

/**
 * A fresh workspace per candidate, layered on the task's trusted snapshot (snapshot.ts).
 *
 * Choice (measured on this VM for a 10,000-file, 40 MB repository; bench/verify.bench.ts):
 * - **overlay** (default, needs root): a size- and inode-limited tmpfs per candidate holds an overlayfs
 *   upper layer over the shared, read-only snapshot. Mounting costs ~10–15 ms whatever the repository
 *   size; what the candidate writes is copied up into its own tmpfs, so the snapshot is never written,
 *   and unmounting frees everything at once (no tree walk). Disk-fill attacks hit the tmpfs size
 *   (B6). Hard links were rejected: the sandbox chowns the workspace to its run uid, which would chown
 *   the shared inodes and make the pristine store writable. Reflinks need btrfs/xfs (this host is ext4).
 * - **copy** (fallback when mounts are not permitted): a plain recursive copy of the snapshot, inside
 *   a tmpfs when one can be mounted. Cost grows with the repository (~350 ms tmpfs→tmpfs, ~1.3 s from
 *   disk for 10,000 files), so the verifier says so once.
 *
 * The same tmpfs holds `out/` (the sandbox's /out) and `ro/` (per-run read-only inputs: the plan,
 * canary files, the patch), so everything one candidate can fill is bounded by one size limit.
 */

export type WorkspaceStrategy = "overlay" | "copy";

export interface WorkspaceLimits {
  /** Size of the per-candidate tmpfs (workspace changes + reports). */
  bytes: number;
  /** Inodes beyond the snapshot's own (files a candidate may create). */
  extraInodes: number;
}

export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = { bytes: 1024 * 2 ** 20, extraInodes: 100_000 };

export interface Workspace {
  /** The directory the sandbox mounts at /workspace. */
  dir: string;
  /** The sandbox's /out. */
  outDir: string;
  /** Verifier-written inputs, bound read-only into the sandbox. */
  roDir: string;
  strategy: WorkspaceStrategy;
  /** Milliseconds spent making it. */
  prepareMs: number;
  close(): Promise<void>;
}

export class WorkspaceFactory {
  private counter = 0;
  private overlayWorks: boolean | undefined;
  private tmpfsWorks: boolean | undefined;

  constructor(
    private readonly root: string,
    private readonly limits: WorkspaceLimits = DEFAULT_WORKSPACE_LIMITS,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  async create(snapshot: Snapshot): Promise<Workspace> {
    const started = performance.now();
    const runDir = join(this.root, `ws-${++this.counter}`);
    await mkdir(runDir, { mode: 0o700 });
    const fs = join(runDir, "fs");
    await mkdir(fs, { mode: 0o700 });
    const mounted: string[] = [];
    const close = async () => {
      await unmount(...mounted.splice(0).reverse());
      await rm(runDir, { recursive: true, force: true });
    };
    const inodes = snapshot.paths.size * 2 + this.limits.extraInodes;
    const paths = { dir: join(fs, "ws"), outDir: join(fs, "out"), roDir: join(fs, "ro") };
    try {
      if (this.overlayWorks !== false) {
        try {
          await mountLayered(fs, snapshot.dir, this.limits.bytes, inodes);
          mounted.push(fs, paths.dir);
          this.overlayWorks = true;
          return { ...paths, strategy: "overlay", prepareMs: performance.now() - started, close };
        } catch (e) {
          if (this.overlayWorks) throw e;
          this.overlayWorks = false;
          this.warn(
            `overlayfs workspaces unavailable (${(e as Error).message}); copying the repository for every candidate`,
          );
        }
      }
      if (this.tmpfsWorks !== false) {
        try {
          await mountTmpfs(fs, this.limits.bytes, inodes);
          mounted.push(fs);
          this.tmpfsWorks = true;
        } catch (e) {
          if (this.tmpfsWorks) throw e;
          this.tmpfsWorks = false;
          this.warn(
            `cannot mount a tmpfs per candidate (${(e as Error).message}); workspaces are not size-limited`,
          );
        }
      }
      for (const d of [paths.dir, paths.outDir, paths.roDir]) await mkdir(d, { mode: 0o755 });
      await cp(snapshot.dir, paths.dir, { recursive: true, verbatimSymlinks: true });
      return { ...paths, strategy: "copy", prepareMs: performance.now() - started, close };
    } catch (e) {
      await close();
      throw e;
    }
  }
}
