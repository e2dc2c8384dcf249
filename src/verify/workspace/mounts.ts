import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { SandboxError } from "../../errors.ts";
import { type MountRequest, MountServiceGone, mountService } from "./mount-service.ts";

/**
 * The few mounts the verifier makes itself (per-candidate tmpfs and overlay, see workspace.ts): by the
 * session's mount service (mount-service.ts, system calls from one long-lived helper), or, where that
 * cannot run, by util-linux `mount`/`umount`, one process per step. Every live mount is remembered so
 * that a crash or Ctrl-C still detaches it (lazily) on the way out instead of leaving it in the host's
 * mount table.
 */

const run = promisify(execFile);
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
const live = new Set<string>();
let hooked = false;

/** Makes sure `targets` are detached when the process exits (mounts made elsewhere, e.g. idmapped views). */
export function rememberMount(...targets: string[]): void {
  for (const t of targets) live.add(t);
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const path of [...live].reverse()) {
      try {
        execFileSync("umount", ["-l", path], { stdio: "ignore", env: TOOL_ENV });
      } catch {
        // already gone
      }
    }
  });
}

export async function mountTmpfs(target: string, sizeBytes: number, inodes: number): Promise<void> {
  const options = `size=${sizeBytes},nr_inodes=${inodes},mode=0700,nosuid,nodev`;
  await mount(
    { op: "tmpfs", target, size: sizeBytes, inodes },
    ["mount", "-t", "tmpfs", "-o", options, "gagar-ws", target],
    [target],
  );
}

/**
 * Size- and inode-limited tmpfs mounts where the host allows them (workspaces of candidates and of
 * policy rollouts). Whether it does is found out once: after a first refusal (not root, no
 * CAP_SYS_ADMIN) it stops trying and `onUnsupported` hears the reason once; a failure after mounts
 * have worked is a real error and throws.
 */
export class LimitedTmpfs {
  private works: boolean | undefined;

  constructor(private readonly onUnsupported: (reason: string) => void) {}

  /** Mounts a tmpfs at `target`; false when this host does not let gagar mount one. */
  async mount(target: string, sizeBytes: number, inodes: number): Promise<boolean> {
    if (this.works === false) return false;
    try {
      await mountTmpfs(target, sizeBytes, inodes);
      this.works = true;
      return true;
    } catch (e) {
      if (this.works) throw e;
      const first = this.works === undefined;
      this.works = false;
      if (first) this.onUnsupported((e as Error).message);
      return false;
    }
  }
}

/**
 * An overlay at `target` of `lower` (read-only, shared by all candidates) with `upper` and `work` on the
 * candidate's tmpfs. `metacopy=on` keeps ownership changes cheap when the workspace has to be chowned
 * (no idmapped lower, see workspace.ts): only metadata is copied up until a file's data is written. That
 * is safe because the upper layer lives on a tmpfs only the verifier can reach, so nobody can plant the
 * trusted.overlay.* xattrs it relies on.
 */
export async function mountOverlay(
  target: string,
  lower: string,
  upper: string,
  work: string,
): Promise<void> {
  for (const path of [target, lower, upper, work]) {
    if (/[,:\\\s]/.test(path))
      throw new SandboxError(`overlay path ${path} contains ',', ':', '\\' or space`, false);
  }
  const options = `lowerdir=${lower},upperdir=${upper},workdir=${work},metacopy=on,nosuid,nodev`;
  await mount(
    { op: "overlay", target, lower, upper, work },
    ["mount", "-t", "overlay", "-o", options, "gagar-ovl", target],
    [target],
  );
}

/** Asks the mount service; false when it is not available (the caller uses util-linux instead). */
export async function byService(req: MountRequest): Promise<boolean> {
  try {
    await mountService().request(req);
    return true;
  } catch (e) {
    if (e instanceof MountServiceGone) return false;
    throw e;
  }
}

async function mount(req: MountRequest, argv: string[], targets: string[]): Promise<void> {
  try {
    if (!(await byService(req))) await run(argv[0]!, argv.slice(1), { env: TOOL_ENV });
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
    throw new SandboxError(`mounting ${targets.at(-1)} failed: ${stderr}`, false);
  }
  rememberMount(...targets);
}

/** Unmounts `targets` in order (innermost first), falling back to a lazy detach for busy ones. */
export async function unmount(...targets: string[]): Promise<void> {
  if (targets.length === 0) return;
  if (!(await byService({ op: "umount", targets }))) {
    try {
      await run("umount", targets, { env: TOOL_ENV });
    } catch {
      for (const target of targets)
        await run("umount", ["-l", target], { env: TOOL_ENV }).catch(() => undefined);
    }
  }
  for (const t of targets) live.delete(t);
}
