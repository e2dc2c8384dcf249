import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selectBackend } from "../src/sandbox/select.ts";
import { loadTaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { IdmappedLowers } from "../src/verify/workspace/idmapped-lowers.ts";
import { WorkspaceFactory } from "../src/verify/workspace/workspace.ts";
import { writeTask } from "../test/support/task-fixture.ts";
import { median, report } from "./stats.ts";

/**
 * Environment benchmarks (issue 11 goals in brackets): a task whose `setup` environment leaves a
 * node_modules of 50,000 files (written by a set-up command, as `npm ci` would; no network needed).
 * - the environment's build time, reported once per task (a second session takes it from the cache);
 * - a candidate's workspace on it: tmpfs, overlay, hand-over to the run uid [< 10 ms], whatever the
 *   size of node_modules; next to the same on the bare repository.
 */
const FILES = 50_000;
const REPS = 21;
const MAKE_MODULES = `
import os
for p in range(500):
    d = os.path.join("node_modules", "pkg%03d" % p, "lib")
    os.makedirs(d)
    with open(os.path.join("node_modules", "pkg%03d" % p, "package.json"), "w") as f:
        f.write('{"name": "pkg%03d", "version": "1.0.0", "main": "lib/f0.js"}\\n' % p)
    for i in range(${FILES / 500 - 1}):
        with open(os.path.join(d, "f%d.js" % i), "w") as f:
            f.write("module.exports = %d;\\n" % i)
`;

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "gagar-bench-env-"));
  const cache = join(root, "cache");
  try {
    const dir = writeTask(join(root, "tasks"), {
      id: "modules",
      spec: {
        statement: "bench",
        language: "javascript",
        test: { runner: "node:test" },
        environment: { kind: "setup", commands: [["python3", "-c", MAKE_MODULES]] },
        failToPass: ["test/a.test.js::a"],
      },
      repo: { "index.js": "module.exports = 1;\n", "test/a.test.js": "" },
      tests: { "test/a.test.js": 'require("node:test")("a", () => {});\n' },
    });
    const pack = loadTaskPack(dir);
    const sandbox = await selectBackend("bwrap");
    const first = new Verifier({ sandbox, environmentCache: cache });
    const task = await first.task(pack);
    report(
      `setup environment build, ${task.snapshot.files.length} files (once per task, s)`,
      (task.environment.buildMs / 1000).toFixed(1),
    );
    const again = new Verifier({ sandbox, environmentCache: cache });
    const t0 = performance.now();
    const cached = await again.task(pack);
    report(
      `same environment in a new session (from the cache${cached.environment.cached ? "" : ": NOT CACHED"}, ms)`,
      (performance.now() - t0).toFixed(0),
    );
    const runs = join(root, "ws");
    const lowers = new IdmappedLowers((m) => console.error(`warning: ${m}`));
    const factory = new WorkspaceFactory(runs, undefined, undefined, lowers);
    const uid = 61051;
    const time = async (snapshot: typeof task.snapshot) => {
      const times: number[] = [];
      let how = "";
      for (let i = 0; i < REPS + 1; i++) {
        const ws = await factory.create(snapshot);
        const handed = await ws.attach(uid);
        if (i > 0) times.push(ws.prepareMs);
        how = `${ws.strategy}${handed ? ", idmapped" : ", needs chown -R"}`;
        await ws.close();
      }
      return { ms: median(times), how };
    };
    const { mkdirSync } = await import("node:fs");
    mkdirSync(runs);
    const big = await time(cached.snapshot);
    const plain = await time({ ...cached.snapshot, dir: join(root, "tasks", "modules", "repo") });
    report(
      `workspace per candidate over ${cached.snapshot.files.length} files (${big.how}, ms) [goal < 10]`,
      big.ms.toFixed(1),
    );
    report(`workspace per candidate over the bare repository (${plain.how}, ms)`, plain.ms.toFixed(1));
    report("ratio (50,000-file node_modules / bare repository)", (big.ms / plain.ms).toFixed(2));
    await lowers.close();
    await first.close();
    await again.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
