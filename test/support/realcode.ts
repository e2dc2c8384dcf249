import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Real repositories with their history, as git bundles named `<owner>+<name>.bundle` in the folder
 * GAGAR_REALCODE names (.ci/run sets it). Tests that need them skip, saying why, without it.
 */
export const REALCODE = process.env.GAGAR_REALCODE;

/** Why tests that need `repos` are skipped here, or undefined when they can run. */
export function realcodeSkip(repos: readonly string[]): string | undefined {
  if (!REALCODE)
    return "needs the real repositories' git bundles: set GAGAR_REALCODE to their folder (.ci/run does)";
  const missing = repos.filter((r) => !existsSync(bundleOf(r)));
  return missing.length ? `GAGAR_REALCODE has no bundle of ${missing.join(", ")}` : undefined;
}

/** A working tree of `repo` (`owner/name`) at `commit` (40 hex digits) in `dest`. */
export function checkoutRealcode(repo: string, commit: string, dest: string): void {
  execFileSync("git", ["clone", "--quiet", "--no-checkout", bundleOf(repo), dest], { stdio: "pipe" });
  execFileSync("git", ["-C", dest, "checkout", "--quiet", "--detach", commit], { stdio: "pipe" });
}

function bundleOf(repo: string): string {
  return join(REALCODE ?? "", `${repo.replace("/", "+")}.bundle`);
}
