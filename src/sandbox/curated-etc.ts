import { rmSync } from "node:fs";
import { copyFile, lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makeRunDir } from "./run-dir.ts";

/** A host path bound read-only at the same place in the sandbox, over a placeholder in the curated /etc. */
export interface HostBind {
  source: string;
  target: string;
}

/** Public host files copied as they are: the dynamic linker cache and the tables libc and Python read. */
const COPIED = ["ld.so.cache", "protocols", "services", "ssl/openssl.cnf"];
/** Symlinks recreated as they are (they point into /usr). */
const LINKED = ["localtime", "os-release"];
/** Directories bound read-only: CA certificates and Debian's alternatives (`awk` and friends link there). */
const BOUND = ["ssl/certs", "alternatives"];

export const SANDBOX_USER = "gagar";
export const SANDBOX_HOSTNAME = "gagar-sandbox";

/**
 * Writes the sandbox's /etc into `dir` (a private, root-owned directory) and returns the host
 * directories to bind over the placeholders it leaves. Binding the host's /etc instead would hand
 * the candidate every config file, key and credential that happens to be world-readable there.
 */
export async function writeCuratedEtc(
  dir: string,
  uid: number,
  hostEtc = "/etc",
  network = false,
): Promise<HostBind[]> {
  await mkdir(dir, { mode: 0o755, recursive: true });
  const files: Record<string, string> = {
    passwd: [
      "root:x:0:0:root:/root:/usr/sbin/nologin",
      `${SANDBOX_USER}:x:${uid}:${uid}:gagar sandbox:/tmp:/bin/sh`,
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    ].join("\n"),
    group: ["root:x:0:", `${SANDBOX_USER}:x:${uid}:`, "nogroup:x:65534:"].join("\n"),
    hosts: "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback",
    hostname: SANDBOX_HOSTNAME,
    "nsswitch.conf": [
      "passwd: files",
      "group: files",
      "shadow: files",
      `hosts: files${network ? " dns" : ""}`,
      "networks: files",
    ].join("\n"),
  };
  // Trusted commands with network (setup environments) resolve names through the host's resolvers.
  if (network) files["resolv.conf"] = await readFile("/etc/resolv.conf", "utf8").catch(() => "");
  for (const [name, text] of Object.entries(files))
    await writeFile(join(dir, name), `${text}\n`, { mode: 0o644 });

  for (const name of COPIED) {
    const info = await lstat(join(hostEtc, name)).catch(() => undefined);
    if (!info?.isFile()) continue;
    await mkdir(dirname(join(dir, name)), { mode: 0o755, recursive: true });
    await copyFile(join(hostEtc, name), join(dir, name));
  }
  for (const name of LINKED) {
    const info = await lstat(join(hostEtc, name)).catch(() => undefined);
    if (!info?.isSymbolicLink()) continue;
    await symlink(await readlink(join(hostEtc, name)), join(dir, name));
  }
  const binds: HostBind[] = [];
  for (const name of BOUND) {
    const info = await lstat(join(hostEtc, name)).catch(() => undefined);
    if (!info?.isDirectory()) continue;
    await mkdir(join(dir, name), { mode: 0o755, recursive: true });
    binds.push({ source: join(hostEtc, name), target: `/etc/${name}` });
  }
  return binds;
}

/** Curated /etc directories to remove when this process exits (a killed one is swept by run-dir.ts). */
const cached = new Set<string>();
let hooked = false;

/**
 * One curated /etc per run uid, written on first use and shared by that uid's runs (bound read-only),
 * instead of one per run: writing a whole /etc is a noticeable part of a run's start. It lives in a run directory of its
 * own (root-owned, 0711, named after this process) until the process exits. Changes to the host's /etc
 * during a session are not picked up.
 */
export class CuratedEtcCache {
  private readonly byKey = new Map<string, Promise<{ dir: string; binds: HostBind[] }>>();

  constructor(private readonly base: string) {}

  /** The curated /etc of `uid` over `root`'s /etc (the host's by default), with DNS when `network`. */
  get(uid: number, root = "/", network = false): Promise<{ dir: string; binds: HostBind[] }> {
    const key = `${uid}\u0000${root}\u0000${network}`;
    let entry = this.byKey.get(key);
    if (!entry) {
      entry = (async () => {
        const runDir = await makeRunDir(this.base);
        remember(runDir);
        const dir = join(runDir, "etc");
        return { dir, binds: await writeCuratedEtc(dir, uid, join(root, "etc"), network) };
      })();
      entry.catch(() => this.byKey.delete(key));
      this.byKey.set(key, entry);
    }
    return entry;
  }
}

function remember(dir: string): void {
  cached.add(dir);
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const d of cached) rmSync(d, { recursive: true, force: true });
  });
}
