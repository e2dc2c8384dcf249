import { chown, cp, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { SandboxError } from "../../errors.ts";
import type { IdmappedLowers } from "./idmapped-lowers.ts";
import { LimitedTmpfs, mountOverlay, unmount } from "./mounts.ts";
import type { Snapshot } from "./snapshot.ts";

/**
 * A fresh workspace per candidate, layered on the task's trusted snapshot (snapshot.ts).
 *
 * Choice (bench/verify.bench.ts measures both on a 10,000-file, 40 MB repository):
 * - **overlay** (default, needs root): a size- and inode-limited tmpfs per candidate holds an overlayfs
 *   upper layer over the shared, read-only snapshot. Mounting costs the same whatever the repository size
 *   (system calls from the mount service, mounts.ts, or util-linux processes where it cannot run); what the candidate writes is copied up into its own tmpfs, so the snapshot is never written,
 *   and unmounting frees everything at once (no tree walk). Disk-fill attacks hit the tmpfs size
 *   (B6). Hard links were rejected: the sandbox chowns the workspace to its run uid, which would chown
 *   the shared inodes and make the pristine store writable. Reflinks need btrfs/xfs (this host is ext4).
 * - **copy** (fallback when mounts are not permitted): a plain recursive copy of the snapshot, inside
 *   a tmpfs when one can be mounted. Cost grows with the repository (every file is
 *   copied, for every candidate), so the verifier says so once.
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
  /** The directory the sandbox mounts at /workspace (filled once `attach` has run). */
  dir: string;
  /** The sandbox's /out. */
  outDir: string;
  /** Verifier-written inputs, bound read-only into the sandbox. */
  roDir: string;
  strategy: WorkspaceStrategy;
  /** Milliseconds spent making it (create and attach). */
  readonly prepareMs: number;
  /**
   * Puts the repository at `dir`, owned by `owner` when given (the sandbox's run uid). Returns true when
   * `dir` and `outDir` now belong to `owner`; false means the caller must chown them (`chown -R`, whose
   * cost grows with the repository). Call once, before anything uses `dir`.
   */
  attach(owner?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class WorkspaceFactory {
  private counter = 0;
  private overlayWorks: boolean | undefined;
  private readonly tmpfs = new LimitedTmpfs((reason) =>
    this.warn(`cannot mount a tmpfs per candidate (${reason}); workspaces are not size-limited`),
  );

  constructor(
    private readonly root: string,
    private readonly limits: WorkspaceLimits = DEFAULT_WORKSPACE_LIMITS,
    private readonly warn: (message: string) => void = () => {},
    private readonly lowers?: IdmappedLowers,
  ) {}

  async create(snapshot: Snapshot): Promise<Workspace> {
    const started = performance.now();
    let prepareMs = 0;
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
    const made = (strategy: WorkspaceStrategy, attach: Workspace["attach"]): Workspace => {
      prepareMs = performance.now() - started;
      return {
        ...paths,
        strategy,
        get prepareMs() {
          return prepareMs;
        },
        attach: async (owner) => {
          const t0 = performance.now();
          try {
            return await attach(owner);
          } finally {
            prepareMs += performance.now() - t0;
          }
        },
        close,
      };
    };
    try {
      const limited = await this.tmpfs.mount(fs, this.limits.bytes, inodes);
      if (limited) mounted.push(fs);
      for (const d of [paths.dir, paths.outDir, paths.roDir]) await mkdir(d, { mode: 0o755 });
      if (limited && (await this.overlaySupported(fs))) {
        const upper = join(fs, "upper");
        const work = join(fs, "work");
        await mkdir(upper, { mode: 0o755 });
        await mkdir(work, { mode: 0o700 });
        let attached = false;
        return made("overlay", async (owner) => {
          if (attached) throw new SandboxError("workspace attached twice", false);
          attached = true;
          const self = ownedAlready(owner);
          // The snapshot seen as owned by the run uid (an idmapped mount), so that nothing needs a chown.
          const view = self ? undefined : await this.lowers?.view(snapshot.dir, owner!);
          if (view !== undefined) {
            // Before the mount: overlayfs takes the merged root's owner from the upper directory then.
            await chown(upper, owner!, owner!);
            await chown(paths.outDir, owner!, owner!);
            try {
              await mountOverlay(paths.dir, view, upper, work);
              mounted.push(paths.dir);
              return true;
            } catch (e) {
              // The caller's chown -R then hands over the plain overlay below.
              this.lowers?.disable(`overlayfs refused the idmapped lower layer: ${(e as Error).message}`);
            }
          }
          await mountOverlay(paths.dir, snapshot.dir, upper, work);
          mounted.push(paths.dir);
          return self;
        });
      }
      await cp(snapshot.dir, paths.dir, { recursive: true, verbatimSymlinks: true });
      return made("copy", async (owner) => ownedAlready(owner));
    } catch (e) {
      await close();
      throw e;
    }
  }

  /** Whether overlays can be mounted here, found out once (on a scratch overlay) before a run depends on it. */
  private async overlaySupported(fs: string): Promise<boolean> {
    if (this.overlayWorks !== undefined) return this.overlayWorks;
    const probe = join(fs, "probe");
    const dirs = ["lower", "upper", "work", "merged"].map((d) => join(probe, d));
    for (const d of dirs) await mkdir(d, { recursive: true, mode: 0o700 });
    try {
      await mountOverlay(dirs[3]!, dirs[0]!, dirs[1]!, dirs[2]!);
      await unmount(dirs[3]!);
      this.overlayWorks = true;
    } catch (e) {
      this.markNoOverlay(e as Error);
    }
    await rm(probe, { recursive: true, force: true });
    return this.overlayWorks === true;
  }

  private markNoOverlay(error?: Error): void {
    if (this.overlayWorks === false) return;
    this.overlayWorks = false;
    this.warn(
      `overlayfs workspaces unavailable (${error?.message ?? "unknown"}); copying the repository for every candidate`,
    );
  }
}

/** No hand-over needed: no owner asked for, or the owner is whoever runs gagar (and made the files). */
function ownedAlready(owner: number | undefined): boolean {
  return owner === undefined || owner === process.getuid?.();
}
