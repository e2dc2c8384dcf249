import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxBackend } from "./types.ts";
import type { UidPool } from "./uid-pool.ts";

async function sysctl(name: string): Promise<string | undefined> {
  return (await readFile(`/proc/sys/${name.replaceAll(".", "/")}`, "utf8").catch(() => undefined))?.trim();
}

/**
 * Host conditions the namespace backends need, each as "what is wrong: how to fix it". Checked before
 * the trial run so that doctor can name the cause instead of only bwrap's last words.
 */
export async function hostPrerequisites(
  pool: UidPool,
  runDirBase: string,
  needs: { userNamespaces: boolean },
): Promise<string[]> {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) {
    missing.push(
      "not running as root: gagar switches every run to its own unprivileged uid with setpriv, which needs root (run gagar as root, e.g. in the CI container)",
    );
  }
  const { base, size } = pool.range;
  const clashes = pool.clashingAccounts();
  if (clashes.length) {
    missing.push(
      `sandbox uids ${base}-${base + size - 1} belong to accounts (${clashes.join(", ")}), whose processes the pool would kill: choose another uid range`,
    );
  }
  const dir = await stat(runDirBase).catch(() => undefined);
  if (!dir?.isDirectory() || (dir.mode & 0o001) === 0) {
    missing.push(
      `${runDirBase} must be a directory other users can traverse (chmod o+x ${runDirBase}) for the run directories`,
    );
  }
  if (needs.userNamespaces) {
    if ((await sysctl("user.max_user_namespaces")) === "0") {
      missing.push("user namespaces are disabled: sysctl -w user.max_user_namespaces=15000");
    }
    if ((await sysctl("kernel.unprivileged_userns_clone")) === "0") {
      missing.push("unprivileged user namespaces are disabled: sysctl -w kernel.unprivileged_userns_clone=1");
    }
    if ((await sysctl("kernel.apparmor_restrict_unprivileged_userns")) === "1") {
      missing.push(
        "AppArmor restricts unprivileged user namespaces: install an AppArmor profile for /usr/bin/bwrap or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
      );
    }
  }
  return missing;
}

/** Runs /bin/true in the backend: the only proof that the whole chain works on this host. */
export async function trialRun(backend: SandboxBackend): Promise<string[]> {
  const workspace = await mkdtemp(join(tmpdir(), "gagar-check-"));
  try {
    const result = await backend.run({ argv: ["/bin/true"], workspace, timeoutMs: 20_000 });
    if (result.exitCode === 0) return [];
    return [
      `trial run of /bin/true exited ${result.exitCode ?? result.signal}: ${result.stderr.trim() || "no message"}`,
    ];
  } catch (error) {
    return [`trial run failed: ${(error as Error).message}`];
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
