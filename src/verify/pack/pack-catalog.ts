import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ConfigError, SandboxError } from "../../errors.ts";
import { unpackPack } from "./pack-archive.ts";
import { packDigest } from "./pack-digest.ts";
import { loadTaskPack, loadTaskPacks, type TaskPack } from "./task-pack.ts";

/**
 * Loaded task packs with their content digests, computed on first use (hashing a large repository
 * takes a while) and then remembered: packs are treated as immutable while a process runs.
 */
export class PackCatalog {
  private readonly digests = new Map<string, string>();

  constructor(readonly packs: ReadonlyMap<string, TaskPack>) {}

  /** The packs of several folders (each a folder of task folders, or one task); a task id once. */
  static load(dirs: readonly string[]): PackCatalog {
    const all = new Map<string, TaskPack>();
    for (const dir of dirs) {
      for (const [id, pack] of loadTaskPacks(dir)) {
        const other = all.get(id);
        if (other) throw new ConfigError(`task "${id}" is in two task folders: ${other.dir} and ${pack.dir}`);
        all.set(id, pack);
      }
    }
    return new PackCatalog(all);
  }

  pack(taskId: string): TaskPack | undefined {
    return this.packs.get(taskId);
  }

  /** The digest of a loaded task (undefined for an unknown one). */
  digest(taskId: string): string | undefined {
    const pack = this.packs.get(taskId);
    if (!pack) return undefined;
    let digest = this.digests.get(taskId);
    if (digest === undefined) {
      digest = packDigest(pack.dir);
      this.digests.set(taskId, digest);
    }
    return digest;
  }

  /** The loaded pack with this digest, if any. */
  byDigest(digest: string): TaskPack | undefined {
    for (const [taskId, known] of this.digests) if (known === digest) return this.packs.get(taskId);
    for (const taskId of this.packs.keys()) if (this.digest(taskId) === digest) return this.packs.get(taskId);
    return undefined;
  }
}

export interface PackSourceOptions {
  /** Task packs on a path every machine shares (NFS, a baked image): used when their digest matches. */
  shared?: PackCatalog;
  /** Where fetched packs are kept, one folder per digest, across restarts (none: shared packs only). */
  cacheDir?: string;
  /** The archive of a pack by digest (`GET /v1/packs/{digest}` of the service). */
  fetchArchive?: (digest: string) => Promise<Readable>;
}

/**
 * Where a worker gets the task pack a job names by (task id, digest): the shared folders if they
 * hold that exact content, else its cache, else the service, which it then caches. A pack is
 * fetched once per worker process and digest even when many jobs ask at once.
 */
export class PackSource {
  private readonly loading = new Map<string, Promise<TaskPack>>();

  constructor(private readonly options: PackSourceOptions) {
    if (options.cacheDir) mkdirSync(options.cacheDir, { recursive: true });
  }

  get(taskId: string, digest: string): Promise<TaskPack> {
    let pack = this.loading.get(digest);
    if (!pack) {
      pack = this.load(taskId, digest);
      this.loading.set(digest, pack);
      // A failed fetch is not remembered: the job's next attempt tries again.
      pack.catch(() => this.loading.delete(digest));
    }
    return pack;
  }

  private async load(taskId: string, digest: string): Promise<TaskPack> {
    const { shared, cacheDir, fetchArchive } = this.options;
    if (shared?.pack(taskId) && shared.digest(taskId) === digest) return shared.pack(taskId)!;
    const cached = cacheDir && join(cacheDir, digest, taskId);
    if (cached && existsSync(join(cached, "task.json"))) return loadTaskPack(cached);
    if (!fetchArchive || !cacheDir) {
      const why = shared?.pack(taskId)
        ? "the shared task folders hold other content for it"
        : "it is not in the shared task folders";
      throw new SandboxError(
        `task ${taskId} (pack ${digest.slice(0, 12)}) is not available here: ${why}, and there is no service to fetch it from (--server)`,
        false,
      );
    }
    return loadTaskPack(await unpackPack(await fetchArchive(digest), cacheDir, taskId, digest));
  }
}
