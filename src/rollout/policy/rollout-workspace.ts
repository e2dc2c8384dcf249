import { mkdir, rm, statfs } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../../errors.ts";
import { LimitedTmpfs, unmount } from "../../verify/workspace/mounts.ts";
import { type Baseline, copyBaseline } from "./baseline.ts";

/** What one rollout may store, on top of the repository it starts from. */
export interface WorkspaceQuota {
  /** Bytes of the rollout's filesystem: the repository copy, its git baseline and whatever the agent writes. */
  bytes: number;
  /** Files and directories the agent may create beyond the repository's own. */
  inodes: number;
}

/**
 * Below this much free space or these many free inodes a workspace counts as full: git (for the final
 * diff) and the file tools need a little room, and a rollout that left less has hit its quota.
 */
const FULL_BELOW_BYTES = 1024 * 1024;
const FULL_BELOW_INODES = 64;

export interface RolloutWorkspace {
  /** Host directory the sandbox mounts at /workspace: a copy of the baseline, `.git` included. */
  dir: string;
  /** True when (nearly) no space or inodes are left on the rollout's filesystem. */
  full(): Promise<boolean>;
  /** Unmounts and deletes everything of the rollout. */
  close(): Promise<void>;
}

/**
 * Workspaces of policy rollouts, each on its own size- and inode-limited tmpfs (as the verifier's
 * are), so that one rollout's output cannot fill the host's disk: the agent's commands see "No space
 * left on device", and the rollout ends with `workspace_full` and the patch so far. Where tmpfs
 * cannot be mounted (not root), workspaces are plain directories and the `warn` callback says once
 * that they are not size-limited.
 */
export class RolloutWorkspaces {
  private readonly tmpfs: LimitedTmpfs;

  constructor(
    private readonly quota: WorkspaceQuota,
    warn: (message: string) => void,
  ) {
    this.tmpfs = new LimitedTmpfs((reason) =>
      warn(
        `gagar: cannot mount a tmpfs per policy rollout (${reason}); rollout workspaces are not size-limited`,
      ),
    );
  }

  /**
   * A workspace under `root` (a directory that must not exist yet) holding a copy of `baseline`,
   * which has `baselineEntries` files and directories.
   */
  async create(root: string, baseline: Baseline, baselineEntries: number): Promise<RolloutWorkspace> {
    await mkdir(root, { mode: 0o700 });
    const limited = await this.tmpfs.mount(root, this.quota.bytes, baselineEntries + this.quota.inodes);
    const close = async () => {
      if (limited) await unmount(root);
      await rm(root, { recursive: true, force: true });
    };
    const dir = join(root, "ws");
    try {
      await copyBaseline(baseline, dir);
    } catch (error) {
      await close();
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOSPC" || code === "EDQUOT") {
        throw new ConfigError(
          `the task repository (with its git baseline) does not fit a rollout workspace of ${this.quota.bytes} bytes ` +
            `and ${this.quota.inodes} extra inodes; raise rollouts.workspaceBytes`,
        );
      }
      throw error;
    }
    return {
      dir,
      full: async () => {
        if (!limited) return false;
        const fs = await statfs(root);
        return fs.bavail * fs.bsize < FULL_BELOW_BYTES || fs.ffree < FULL_BELOW_INODES;
      },
      close,
    };
  }
}
