import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { findTool } from "../../sandbox/host-tools.ts";
import { outputExcerpt } from "../run/output-tail.ts";
import type { Snapshot } from "../workspace/snapshot.ts";
import { BuildCache } from "./cache.ts";
import { digestOf } from "./digest.ts";
import { readyRoot } from "./root-source.ts";
import { type Environment, EnvironmentError } from "./types.ts";

const run = promisify(execFile);
const GiB = 2 ** 30;

/**
 * Trusted set-up commands (`npm ci`, `pip install --target`, a build) run once per digest of (spec,
 * repository, base root) in the sandbox, **with network**: the pack author is trusted, and package
 * registries are where dependencies come from. They run on a copy of the task's snapshot; what they
 * leave there, handed back to root, becomes the tree every candidate's workspace is an overlay on, so a
 * workspace stays one mount even over a node_modules of 50,000 files. Candidates never run with network,
 * and see the result read-only below their overlay (node_modules is also a protected path).
 */
export const setupEnvironment: Environment<"setup"> = {
  kind: "setup",
  async supported() {
    const missing: string[] = [];
    if (!findTool("chown")) missing.push("chown not found: apt-get install coreutils");
    return { ok: missing.length === 0, missing };
  },
  async prepare(spec, context) {
    const started = performance.now();
    const cache = new BuildCache(context.cacheDir);
    const base = spec.base
      ? await readyRoot(spec.base, context.taskDir, cache, context.log, "environment.base")
      : undefined;
    const digest = digestOf(
      "setup",
      JSON.stringify({ commands: spec.commands, env: spec.env }),
      base?.digest ?? "host",
      treeDigest(context.snapshot),
    );
    const { dir, built } = await cache.get(digest, async (into) => {
      const tree = join(into, "tree");
      cpSync(context.snapshot.dir, tree, { recursive: true, verbatimSymlinks: true });
      for (const argv of spec.commands) {
        context.log?.(`setup: ${argv.join(" ")}`);
        const result = await context.sandbox.run({
          argv,
          workspace: tree,
          root: base?.root,
          network: true,
          env: spec.env,
          timeoutMs: spec.timeoutSec * 1000,
          outputCapBytes: 8 * 2 ** 20,
          limits: {
            processes: 1024,
            memoryBytes: 16 * GiB,
            fileSizeBytes: 4 * GiB,
            cpuSeconds: spec.timeoutSec,
            openFiles: 4096,
            tmpBytes: 4 * GiB,
          },
        });
        if (result.exitCode !== 0 || result.timedOut || result.outputCapped) {
          const how = result.timedOut
            ? `did not finish within ${spec.timeoutSec}s`
            : result.outputCapped
              ? "printed more than 8 MiB"
              : `exited ${result.exitCode ?? `on signal ${result.signal}`}`;
          throw new EnvironmentError(
            `setup command ${JSON.stringify(argv.join(" "))} ${how}`,
            outputExcerpt(result.stdout, result.stderr, []),
          );
        }
      }
      // Owned by root like the snapshot, so that idmapped workspace views show it as the run uid's.
      // -P -h: never follow the links that installed packages bring.
      await run("chown", ["-R", "-P", "-h", "0:0", tree], { env: { PATH: "/usr/bin:/bin" } });
    });
    removeOldViewPoints(dir);
    return {
      kind: "setup",
      digest,
      root: base?.root,
      tree: join(dir, "tree"),
      buildMs: built ? performance.now() - started : 0,
      cached: !built,
    };
  },
};

/**
 * Empty `tree-as-<uid>` folders that sessions of earlier gagar versions mounted their idmapped views
 * on, beside the tree, and left behind (views now live in the session's own folder,
 * idmapped-lowers.ts). A folder still mounted or not empty is not removed.
 */
function removeOldViewPoints(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!/^tree-as-\d+$/.test(name)) continue;
    try {
      rmdirSync(join(dir, name));
    } catch {
      // in use, or not ours
    }
  }
}

/** A digest of the snapshot's paths and file contents (setup results depend on both). */
function treeDigest(snapshot: Snapshot): string {
  const hash = createHash("sha256");
  for (const rel of [...snapshot.paths].sort()) hash.update(`${rel}\0`);
  for (const rel of [...snapshot.files].sort()) hash.update(readFileSync(join(snapshot.dir, rel)));
  return hash.digest("hex");
}
