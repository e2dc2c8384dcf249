import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { SandboxError } from "../errors.ts";

/**
 * The few mounts the verifier makes itself (per-candidate tmpfs and overlay, see workspace.ts), via
 * util-linux `mount`/`umount`, one process per step because every spawn costs milliseconds per
 * candidate. Every live mount is remembered so that a crash or Ctrl-C still detaches it (lazily) on
 * the way out instead of leaving it in the host's mount table.
 */

const run = promisify(execFile);
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
const live = new Set<string>();
let hooked = false;

function remember(...targets: string[]): void {
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

function tmpfsOptions(sizeBytes: number, inodes: number): string {
  return `size=${sizeBytes},nr_inodes=${inodes},mode=0700,nosuid,nodev`;
}

export async function mountTmpfs(target: string, sizeBytes: number, inodes: number): Promise<void> {
  await mount(["mount", "-t", "tmpfs", "-o", tmpfsOptions(sizeBytes, inodes), "gagar-ws", target], [target]);
}

/**
 * A size- and inode-limited tmpfs at `fs`, and on it an overlay of `lower` (read-only, shared by all
 * candidates) at `fs/ws`, with its upper and work directories in the tmpfs too; `fs/out` and `fs/ro`
 * are created beside it. `metacopy=on` keeps ownership changes cheap (the sandbox chowns the whole
 * workspace to its run uid): only metadata is copied up until a file's data is written. That is safe
 * because the upper layer lives on a tmpfs only the verifier can reach, so nobody can plant the
 * trusted.overlay.* xattrs it relies on.
 */
export async function mountLayered(
  fs: string,
  lower: string,
  sizeBytes: number,
  inodes: number,
): Promise<void> {
  for (const path of [lower, fs]) {
    if (/[,:\\\s]/.test(path))
      throw new SandboxError(`overlay path ${path} contains ',', ':', '\\' or space`, false);
  }
  const overlay = `lowerdir=${lower},upperdir=${fs}/upper,workdir=${fs}/work,metacopy=on,nosuid,nodev`;
  // Paths and options arrive as arguments, never inside the script text.
  const script = [
    'mount -t tmpfs -o "$3" gagar-ws "$1" || exit 1',
    'mkdir -m 0755 "$1/upper" "$1/ws" "$1/out" "$1/ro" && mkdir -m 0700 "$1/work" || { umount "$1"; exit 1; }',
    'mount -t overlay -o "$2" gagar-ovl "$1/ws" || { umount "$1"; exit 1; }',
  ].join("\n");
  await mount(
    ["sh", "-c", script, "gagar-mount", fs, overlay, tmpfsOptions(sizeBytes, inodes)],
    [fs, `${fs}/ws`],
  );
}

async function mount(argv: string[], targets: string[]): Promise<void> {
  try {
    await run(argv[0]!, argv.slice(1), { env: TOOL_ENV });
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
    throw new SandboxError(`mounting ${targets.at(-1)} failed: ${stderr}`, false);
  }
  remember(...targets);
}

/** Unmounts `targets` in order (innermost first), falling back to a lazy detach for busy ones. */
export async function unmount(...targets: string[]): Promise<void> {
  if (targets.length === 0) return;
  try {
    await run("umount", targets, { env: TOOL_ENV });
  } catch {
    for (const target of targets)
      await run("umount", ["-l", target], { env: TOOL_ENV }).catch(() => undefined);
  }
  for (const t of targets) live.delete(t);
}
