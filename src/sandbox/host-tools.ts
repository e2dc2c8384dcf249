import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

/**
 * Host programs the backends chain together, with the package that provides each on Debian/Ubuntu.
 * They are looked up in the system directories only, never through PATH: PATH may point at user-owned
 * shims (pyenv, nvm, ~/.local/bin) that would then run as root with the candidate's workspace at hand.
 */
export const TOOL_PACKAGES = {
  bwrap: "bubblewrap",
  unshare: "util-linux",
  setpriv: "util-linux",
  prlimit: "util-linux",
  choom: "util-linux",
  mount: "mount",
  chown: "coreutils",
  chroot: "coreutils",
  env: "coreutils",
  sh: "dash",
  bash: "bash",
  ip: "iproute2",
  python3: "python3",
  tar: "tar",
  umoci: "umoci",
  skopeo: "skopeo",
} as const;

export type ToolName = keyof typeof TOOL_PACKAGES;

const SYSTEM_DIRS = ["/usr/bin", "/usr/sbin", "/bin", "/sbin"];

/** Absolute path of a system tool, or undefined when it is not installed. */
export function findTool(name: ToolName): string | undefined {
  for (const dir of SYSTEM_DIRS) {
    const path = `${dir}/${name}`;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Resolves every tool; lists the missing ones as "x not found: apt-get install pkg". */
export function findTools<T extends ToolName>(
  names: readonly T[],
): { paths: Record<T, string>; missing: string[] } {
  const paths = {} as Record<T, string>;
  const missing: string[] = [];
  for (const name of names) {
    const path = findTool(name);
    if (path) paths[name] = path;
    else missing.push(`${name} not found: apt-get install ${TOOL_PACKAGES[name]}`);
  }
  return { paths, missing };
}

/** First line of `tool --version`-style output (stdout or stderr), or undefined when it fails. */
export function versionOf(path: string, args: string[] = ["--version"]): string | undefined {
  const result = spawnSync(path, args, { encoding: "utf8", timeout: 10_000, env: {} });
  if (result.error || result.status !== 0) return undefined;
  const line = `${result.stdout}\n${result.stderr}`.split("\n").find((l) => l.trim() !== "");
  return line?.trim();
}
