import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Whether tests that need the npm registry or the Debian mirror run (`GAGAR_TEST_NETWORK=1`; .ci/run
 * sets it), and otherwise why they are skipped.
 */
export const NETWORK_SKIP =
  process.env.GAGAR_TEST_NETWORK === "1"
    ? undefined
    : "needs the npm registry or the Debian mirror: set GAGAR_TEST_NETWORK=1 (.ci/run does)";

/** What the test root holds: another Debian suite's python3 (3.13, the host has 3.11), pytest, Debian's nodejs and mocha. */
export const ROOTFS_SUITE = "trixie";
export const ROOTFS_PACKAGES = ["python3-pytest", "nodejs", "mocha"];

/**
 * A Debian root filesystem tarball made here with mmdebstrap (`--variant=apt`, a minimal include list),
 * built once per machine and shared by every test file of a run (and later runs): the first caller
 * builds it under a lock, the others wait for it.
 */
export async function debianRootfs(): Promise<string> {
  const dir = process.env.GAGAR_TEST_ROOTFS_DIR ?? join(tmpdir(), "gagar-test-rootfs");
  const tarball = join(dir, `${ROOTFS_SUITE}-${ROOTFS_PACKAGES.join("-")}.tar`);
  const lock = `${tarball}.lock`;
  mkdirSync(dir, { recursive: true });
  for (const deadline = Date.now() + 30 * 60_000; !existsSync(tarball); ) {
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`waited 30 min for another build of ${tarball}`);
      await new Promise((r) => setTimeout(r, 2000));
      continue;
    }
    try {
      const partial = `${tarball}.partial.tar`;
      await run(
        "mmdebstrap",
        [
          "--variant=apt",
          "--quiet",
          `--include=${ROOTFS_PACKAGES.join(",")}`,
          ROOTFS_SUITE,
          partial,
          "http://deb.debian.org/debian",
        ],
        { maxBuffer: 64 * 2 ** 20 },
      );
      renameSync(partial, tarball);
    } finally {
      rmSync(`${tarball}.partial.tar`, { force: true });
      rmdirSync(lock);
    }
  }
  return tarball;
}
