import { lstatSync, readlinkSync } from "node:fs";

/** One top-level path of the host that the sandbox root reproduces next to /usr. */
export type RootEntry = { name: string; kind: "symlink"; target: string } | { name: string; kind: "dir" };

const TOP_LEVEL = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/**
 * How the host lays out /bin, /lib and friends: on merged-/usr systems (Debian 12, here) they are
 * symlinks into /usr and are recreated as symlinks; on older hosts they are real directories and are
 * bound read-only. Only these and /usr are taken from the host root, never `/` itself.
 */
export function hostRootLayout(root = "/"): RootEntry[] {
  const entries: RootEntry[] = [];
  for (const name of TOP_LEVEL) {
    const path = `${root}${root.endsWith("/") ? "" : "/"}${name}`;
    try {
      const info = lstatSync(path);
      if (info.isSymbolicLink()) entries.push({ name, kind: "symlink", target: readlinkSync(path) });
      else if (info.isDirectory()) entries.push({ name, kind: "dir" });
    } catch {
      // absent on this host
    }
  }
  return entries;
}
