import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Built environments on disk: `<cacheDir>/<digest>/` holds the result and a `.complete` marker.
 * A build goes to a temporary folder beside it and is renamed into place once complete, so a build
 * killed halfway never looks finished, and two processes building the same digest both end with one
 * complete folder. Within a process, one build per digest runs at a time.
 */
export class BuildCache {
  private readonly building = new Map<string, Promise<{ dir: string; built: boolean }>>();

  constructor(readonly dir: string) {}

  /** The folder of `digest`, built by `build(tempDir)` first unless it exists. */
  get(digest: string, build: (into: string) => Promise<void>): Promise<{ dir: string; built: boolean }> {
    const done = join(this.dir, digest);
    if (existsSync(join(done, ".complete"))) return Promise.resolve({ dir: done, built: false });
    let pending = this.building.get(digest);
    if (!pending) {
      pending = this.build(digest, done, build).finally(() => this.building.delete(digest));
      this.building.set(digest, pending);
    }
    return pending;
  }

  private async build(digest: string, done: string, build: (into: string) => Promise<void>) {
    mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    const temp = join(this.dir, `.${digest}.${randomBytes(4).toString("hex")}.partial`);
    mkdirSync(temp, { mode: 0o755 });
    try {
      await build(temp);
      writeFileSync(join(temp, ".complete"), "");
      try {
        renameSync(temp, done);
      } catch (e) {
        // Another process finished the same digest first: its result is as good as ours.
        if (!existsSync(join(done, ".complete"))) throw e;
        rmSync(temp, { recursive: true, force: true });
      }
      return { dir: done, built: true };
    } catch (e) {
      rmSync(temp, { recursive: true, force: true });
      throw e;
    }
  }
}
