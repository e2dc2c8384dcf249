import { closeSync, lchownSync, lstatSync, mkdirSync, openSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { CheckedMount, CheckedSpec } from "./run-spec.ts";
import { isWithin, OUT, WORKSPACE } from "./run-spec.ts";

/**
 * Makes the mount point of every read-only bind that lands inside the workspace or the output directory,
 * on the host, before the run, so that the bind goes exactly where asked.
 *
 * Why here and not in the sandbox: the workspace holds candidate-written content. If `tests` were a
 * symlink, a bind onto `/workspace/tests/test_x.py` would follow it, and the hidden test would land
 * somewhere the test runner never looks (or the setup would fail, turning a candidate's trick into an
 * "infrastructure error" that drops the sample instead of scoring 0). Nothing of the run's uid is
 * alive at this point, so lstat-then-act has no race. Anything in the way — a symlink, a file where a
 * directory must be, or the reverse — is removed (never followed) and reported.
 *
 * Returns the sandbox paths that were removed. What it creates is given to `owner` when set.
 */
export async function prepareMountPoints(spec: CheckedSpec, owner?: number): Promise<string[]> {
  const replaced: string[] = [];
  for (const mount of spec.readOnly) {
    const root = hostRootOf(mount, spec);
    if (!root) continue;
    const relative = mount.target.slice(root.sandbox.length + 1).split("/");
    let host = root.host;
    let sandbox = root.sandbox;
    for (const [i, name] of relative.entries()) {
      host = join(host, name);
      sandbox = `${sandbox}/${name}`;
      const last = i === relative.length - 1;
      const want = last ? mount.kind : "dir";
      // Synchronous: a few metadata calls per bind, microseconds each inline (the libuv thread pool
      // adds a round trip to every one).
      const info = lstatSync(host, { throwIfNoEntry: false });
      if (info && (want === "dir" ? info.isDirectory() : info.isFile())) continue;
      if (info) {
        // What stands in the way may be a whole tree: removed without blocking the event loop.
        await rm(host, { recursive: true, force: true });
        replaced.push(sandbox);
      }
      if (want === "dir") mkdirSync(host, { mode: 0o755 });
      else closeSync(openSync(host, "wx", 0o644));
      // No chown -R follows when the workspace was handed over already (RunSpec.handOver).
      if (owner !== undefined) lchownSync(host, owner, owner);
    }
  }
  return replaced;
}

function hostRootOf(mount: CheckedMount, spec: CheckedSpec): { host: string; sandbox: string } | undefined {
  if (isWithin(mount.target, WORKSPACE)) return { host: spec.workspace, sandbox: WORKSPACE };
  if (spec.outputDir && isWithin(mount.target, OUT)) return { host: spec.outputDir, sandbox: OUT };
  return undefined;
}
