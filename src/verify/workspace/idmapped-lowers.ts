import { mkdir, mkdtemp, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claimSession, SESSION_PREFIX } from "../session/stale-sessions.ts";
import { byService, rememberMount, unmount } from "./mounts.ts";

/** Snapshots (tasks) whose views are kept mounted. */
const MAX_SNAPSHOTS = 8;

/**
 * Read-only views of task snapshots in which the sandbox's run uid owns every file (idmapped mounts,
 * made by the mount service, mount-service.py), one per snapshot and uid, made on first use and kept
 * for the session.
 *
 * A session's views are mounted in its own folder (`viewsDir`), never beside a snapshot: a setup
 * environment's tree lives in the shared environment cache, and a mount point left there (by this
 * session or a concurrent one, on the same run uid) would make the next session's `mkdir` fail and
 * every workspace fall back to the chown. Views in the session folder go with it, and a killed
 * session's are swept with its folder (stale-sessions.ts).
 *
 * Why: the run uid must own the workspace. A `chown -R` of the overlay copies every file's metadata up,
 * a cost that grows with the repository, on every candidate; with the lower layer idmapped, only the (empty)
 * upper directory needs a chown and a workspace costs the same whatever the repository's size. Hosts
 * without idmapped mounts (Linux < 5.12, a filesystem without support, no python3) fall back to the
 * chown, with one warning.
 */
export class IdmappedLowers {
  private readonly views = new Map<string, Promise<string | undefined>>();
  /** Snapshot directories with views, least recently used first. */
  private readonly recent: string[] = [];
  private readonly evicting = new Set<Promise<void>>();
  /** A number per snapshot, naming its views in `viewsDir`. */
  private readonly numbers = new Map<string, number>();
  private works: boolean | undefined;

  /**
   * `viewsDir`: where views are mounted, a folder of the session (made on first use); without it a
   * view goes beside its snapshot (`<snapshot>-as-<uid>`), for snapshots that are the caller's own.
   */
  constructor(
    private readonly warn: (message: string) => void = () => {},
    private readonly viewsDir?: string,
  ) {}

  /** `snapshotDir` as owned by `uid`, or undefined when this host cannot make idmapped mounts. */
  view(snapshotDir: string, uid: number): Promise<string | undefined> {
    if (this.works === false) return Promise.resolve(undefined);
    this.touch(snapshotDir);
    const target = `${this.viewBase(snapshotDir)}-as-${uid}`;
    let view = this.views.get(target);
    if (!view) {
      view = this.mount(snapshotDir, target, uid);
      this.views.set(target, view);
    }
    return view;
  }

  /** The views of `snapshotDir` are `<base>-as-<uid>`. */
  private viewBase(snapshotDir: string): string {
    if (this.viewsDir === undefined) return snapshotDir;
    let n = this.numbers.get(snapshotDir);
    if (n === undefined) {
      n = this.numbers.size;
      this.numbers.set(snapshotDir, n);
    }
    return join(this.viewsDir, String(n));
  }

  /**
   * Keeps views for the most recently used snapshots only: every mount is copied into each sandbox's
   * mount namespace, so a long run over many tasks must not pile them up. A view still under a
   * workspace is detached lazily and goes when that workspace does.
   */
  private touch(snapshotDir: string): void {
    const at = this.recent.indexOf(snapshotDir);
    if (at >= 0) this.recent.splice(at, 1);
    this.recent.push(snapshotDir);
    while (this.recent.length > MAX_SNAPSHOTS) this.evict(this.recent.shift()!);
  }

  /** Unmounts the views of `snapshotDir` (in the background: `settled` waits for it). */
  private evict(snapshotDir: string): void {
    const base = this.viewBase(snapshotDir);
    for (const [target, view] of this.views) {
      if (!target.startsWith(`${base}-as-`)) continue;
      this.views.delete(target);
      const gone: Promise<void> = view
        .then((t) => (t ? this.remove(t) : undefined))
        .catch(() => {})
        .finally(() => this.evicting.delete(gone));
      this.evicting.add(gone);
    }
  }

  /** Unmounts the views of a snapshot that is going away. */
  async forget(snapshotDir: string): Promise<void> {
    const at = this.recent.indexOf(snapshotDir);
    if (at >= 0) this.recent.splice(at, 1);
    this.evict(snapshotDir);
    await this.settled();
  }

  private async mount(source: string, target: string, uid: number): Promise<string | undefined> {
    try {
      if (this.viewsDir !== undefined) await mkdir(this.viewsDir, { recursive: true, mode: 0o700 });
      await mkdir(target, { mode: 0o755 });
      if (!(await byService({ op: "idmap", source, target, uid })))
        throw new Error("the mount service (python3) is not available");
      rememberMount(target);
      this.works = true;
      return target;
    } catch (e) {
      // Views are off for the session from here on (workspaces fall back to chown -R); nothing of
      // this attempt stays behind.
      this.views.delete(target);
      await rmdir(target).catch(() => {});
      this.disable((e as Error).message);
      return undefined;
    }
  }

  /**
   * Stops making views (the first failure, or an overlay that refuses an idmapped lower: overlayfs
   * takes them from Linux 5.19, the helper works from 5.12). Warns once.
   */
  disable(why: string): void {
    if (this.works === false) return;
    const wasWorking = this.works === true;
    this.works = false;
    this.warn(
      `idmapped workspace views ${wasWorking ? "stopped working" : "unavailable"} (${why}); each workspace is handed to its sandbox uid with chown -R, whose cost grows with the repository`,
    );
  }

  /** Whether this host makes idmapped views (tried once on a scratch directory), or why not. */
  static async probe(): Promise<{ ok: boolean; why?: string }> {
    // A session folder, so that a probe killed halfway is swept like any verifier session.
    const scratch = await mkdtemp(join(tmpdir(), SESSION_PREFIX));
    claimSession(scratch);
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

  /** Resolves once the views evicted so far are unmounted. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.evicting]);
  }

  /** Unmounts every view. */
  async close(): Promise<void> {
    await this.settled();
    const settled = await Promise.allSettled(this.views.values());
    this.views.clear();
    const targets = settled.flatMap((r) =>
      r.status === "fulfilled" && r.value !== undefined ? [r.value] : [],
    );
    await this.remove(...targets);
  }

  /** Unmounts views and removes their (then empty) mount points. */
  private async remove(...targets: string[]): Promise<void> {
    await unmount(...targets);
    await Promise.all(targets.map((t) => rmdir(t).catch(() => {})));
  }
}
