import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { selectBackend } from "../src/sandbox/select.ts";
import type { SandboxBackend } from "../src/sandbox/types.ts";
import { loadTaskPack, type TaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { verifyRollouts } from "../src/verify/verify-rollouts.ts";
import { IdmappedLowers } from "../src/verify/workspace/idmapped-lowers.ts";
import { buildSnapshot } from "../src/verify/workspace/snapshot.ts";
import { WorkspaceFactory } from "../src/verify/workspace/workspace.ts";
import { compareSuite, wholeSuitePack } from "../test/fidelity/fidelity.ts";
import { loadManifest, MANIFEST_PATH } from "../test/fidelity/manifest.ts";
import { materialize } from "../test/fidelity/upstream.ts";
import { REALCODE, realcodeSkip } from "../test/support/realcode.ts";
import { median, report } from "./stats.ts";

/**
 * Verification benchmarks (issue 3 goals in brackets):
 * 1. sandbox overhead: `verify` of a candidate vs the same test command run bare in a plain copy of the
 *    repository, on a test suite of about one second [ratio ≤ 1.15], with the sandbox started on demand
 *    and started ahead (Verifier.verify's readyNext, as `gagar verify` does within a task), and for a
 *    whole group of 8 candidates through verifyRollouts;
 * 2. workspace preparation for a 10,000-file repository [< 100 ms], next to the one-off snapshot build
 *    and the plain-copy fallback;
 * 3. throughput of `verifyRollouts` with 2 parallel sandboxes vs 1;
 * 4. the guards' cost on real repositories' whole test suites (the fidelity suite's, test/fidelity/): the
 *    same suite verified with the guards and without them (`VerifierOptions.guards: false`), alternating
 *    rep by rep, as a ratio guarded / bare. Needs GAGAR_REALCODE (skipped with the reason otherwise).
 * Bare and sandboxed runs alternate rep by rep so both see the same drift of a shared machine;
 * BENCH_VERBOSE=1 prints every rep's times (bare, on demand, bare, ahead) on stderr.
 */

const REPS = 11;
const PYTEST = ["python3", "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1"];
/** About one second of pure-Python work, split over two tests. */
const SPIN = "    s = 0\n    for i in range(16_000_000):\n        s += i\n";

function makeTask(root: string): TaskPack {
  const dir = join(root, "spin");
  mkdirSync(join(dir, "repo", "tests"), { recursive: true });
  mkdirSync(join(dir, "tests", "tests"), { recursive: true });
  writeFileSync(join(dir, "repo", "spin.py"), "def ok():\n    return False\n");
  const tests = `from spin import ok\n\n\ndef test_ok():\n${SPIN}    assert ok()\n\n\ndef test_spin():\n${SPIN}    assert s > 0\n`;
  writeFileSync(join(dir, "repo", "tests", "test_spin.py"), "def test_placeholder():\n    pass\n");
  writeFileSync(join(dir, "tests", "tests", "test_spin.py"), tests);
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({
      schemaVersion: 1,
      id: "spin",
      statement: "ok() should return True",
      language: "python",
      test: { command: [...PYTEST, "--junitxml={junit}", "{tests}"] },
      failToPass: ["tests/test_spin.py::test_ok"],
      passToPass: ["tests/test_spin.py::test_spin"],
      timeoutSec: 60,
    }),
  );
  writeFileSync(
    join(dir, "reference.patch"),
    "diff --git a/spin.py b/spin.py\n--- a/spin.py\n+++ b/spin.py\n@@ -1,2 +1,2 @@\n def ok():\n-    return False\n+    return True\n",
  );
  return loadTaskPack(dir);
}

/** The candidate's test command, bare: a plain copy of repo/ with the hidden tests and the fix in it. */
function bareRun(pack: TaskPack, root: string): () => Promise<void> {
  const copy = join(root, "bare");
  cpSync(pack.repoDir, copy, { recursive: true });
  cpSync(pack.testsDir, copy, { recursive: true });
  writeFileSync(join(copy, "spin.py"), "def ok():\n    return True\n");
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: root,
    TMPDIR: root,
    PYTHONDONTWRITEBYTECODE: "1",
    LANG: "C.UTF-8",
  };
  return () =>
    new Promise((done, fail) => {
      const argv = [...PYTEST, `--junitxml=${join(root, "bare.xml")}`, "tests/test_spin.py"];
      const child = spawn(argv[0]!, argv.slice(1), { cwd: copy, env, stdio: "ignore" });
      child.once("error", fail);
      child.once("exit", (code) => (code === 0 ? done() : fail(new Error(`bare pytest exited ${code}`))));
    });
}

async function overhead(sandbox: SandboxBackend, root: string): Promise<void> {
  const pack = makeTask(root);
  const bare = bareRun(pack, root);
  const verifier = new Verifier({ sandbox });
  try {
    const verify = async (readyNext: boolean) => {
      const outcome = await verifier.verify(pack, pack.referencePatch!, { readyNext });
      if (!outcome.passed)
        throw new Error(`reference did not pass: ${outcome.reason} ${outcome.detail ?? ""}`);
    };
    await bare();
    await verify(false);
    // Each rep times two pairs: bare, then verify with the sandbox started on demand (nothing else
    // running); bare, then verify on a sandbox that was started ahead. The run started ahead comes from
    // an untimed verify that asked for it (readyNext, as verifyRollouts does while a task has candidates
    // queued); what starting ahead costs the candidate that is testing meanwhile shows in the group row
    // below. Background work (an unmount, the start ahead) finishes before each timed run, so that no
    // run is timed while another's leftovers compete for the CPU.
    const timed = async (fn: () => Promise<void>) => {
      await verifier.idle();
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const rows = {
      cold: [] as number[],
      ahead: [] as number[],
      bareCold: [] as number[],
      bareAhead: [] as number[],
    };
    for (let i = 0; i < REPS; i++) {
      await verifier.dropReadyRuns();
      rows.bareCold.push(await timed(bare));
      rows.cold.push(await timed(() => verify(false)));
      await verify(true);
      rows.bareAhead.push(await timed(bare));
      rows.ahead.push(await timed(() => verify(false)));
      if (process.env.BENCH_VERBOSE)
        console.error(
          rows.bareCold.at(-1)!.toFixed(0),
          rows.cold.at(-1)!.toFixed(0),
          rows.bareAhead.at(-1)!.toFixed(0),
          rows.ahead.at(-1)!.toFixed(0),
        );
    }
    if (verifier.stats.startedAhead !== REPS)
      throw new Error(
        `expected ${REPS} verifications on sandboxes started ahead: ${JSON.stringify(verifier.stats)}`,
      );
    const show = (label: string, verifies: number[], bares: number[]) => {
      // The ratio of each rep's pair cancels the shared machine's slow drifts better than a ratio of
      // the two medians; both are printed.
      const paired = verifies.map((v, i) => v / bares[i]!);
      report(`${label}: bare test command (median ms)`, median(bares).toFixed(0));
      report(`${label}: verify (median ms)`, median(verifies).toFixed(0));
      report(`${label}: ratio of medians`, (median(verifies) / median(bares)).toFixed(2));
      report(`${label}: sandbox overhead ratio, median of pairs [goal <= 1.15]`, median(paired).toFixed(2));
    };
    show("sandbox started on demand", rows.cold, rows.bareCold);
    show("sandbox started ahead", rows.ahead, rows.bareAhead);
  } finally {
    await verifier.close();
  }
}

/**
 * What `gagar verify` does with a group: one session verifies 8 distinct candidates of one task with
 * jobs 1, against 8 bare runs of the same suite; once with the next sandbox started ahead while a
 * candidate tests (the default), once with every sandbox started on demand (readyCpuBudget 0). Each rep
 * sandwiches both between two bare blocks, in alternating order, so that a drift of the shared machine
 * during the rep shifts both ratios alike and cancels over reps.
 */
async function groupOverhead(sandbox: SandboxBackend, root: string): Promise<void> {
  const pack = loadTaskPack(join(root, "spin"));
  const tasks = new Map([[pack.spec.id, pack]]);
  const bare = bareRun(pack, root);
  const size = 8;
  const verifiers = {
    ahead: new Verifier({ sandbox }),
    onDemand: new Verifier({ sandbox, readyCpuBudget: 0 }),
  };
  try {
    for (const v of Object.values(verifiers)) {
      await v.selfTest();
      await v.task(pack);
    }
    const bareBlock = async () => {
      const t0 = performance.now();
      for (let i = 0; i < size; i++) await bare();
      return performance.now() - t0;
    };
    const verifyBlock = async (verifier: Verifier, tag: string) => {
      await verifier.idle();
      // Distinct patches (a comment differs), so that deduplication does not collapse them.
      const rollouts = Array.from({ length: size }, (_, i) => ({
        id: `${tag}-${i}`,
        taskId: pack.spec.id,
        patch: pack.referencePatch!.replace("+    return True\n", `+    return True  # ${tag}-${i}\n`),
      }));
      const t0 = performance.now();
      const verdicts = await verifyRollouts(rollouts, { tasks, verifier, jobs: 1 });
      const ms = performance.now() - t0;
      if (verdicts.some((v) => !v.passed)) throw new Error("a group candidate failed");
      return ms;
    };
    const ratios = { ahead: [] as number[], onDemand: [] as number[] };
    for (let rep = 0; rep < 4; rep++) {
      const order = rep % 2 === 0 ? (["ahead", "onDemand"] as const) : (["onDemand", "ahead"] as const);
      const before = await bareBlock();
      const ms: Record<string, number> = {};
      for (const key of order) ms[key] = await verifyBlock(verifiers[key], `${key}${rep}`);
      const bareMs = (before + (await bareBlock())) / 2;
      ratios.ahead.push(ms.ahead! / bareMs);
      ratios.onDemand.push(ms.onDemand! / bareMs);
    }
    report(
      `group of ${size}, next sandbox started ahead: overhead ratio per candidate, median of 4 [goal <= 1.15]`,
      median(ratios.ahead).toFixed(2),
    );
    report(
      `group of ${size}, every sandbox started on demand: overhead ratio per candidate, median of 4 [goal <= 1.15]`,
      median(ratios.onDemand).toFixed(2),
    );
  } finally {
    for (const v of Object.values(verifiers)) await v.close();
  }
}

async function workspacePrep(root: string): Promise<void> {
  const repo = join(root, "big");
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(repo, `pkg${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(join(repo, `pkg${d}`, `m${f}.py`), "x = 1\n".repeat(150));
  }
  let t0 = performance.now();
  const snapshot = buildSnapshot(repo, join(root, "big-snap"));
  report("snapshot build, 10,000 files (once per task, ms)", (performance.now() - t0).toFixed(0));
  const runs = join(root, "ws");
  mkdirSync(runs);
  const lowers = new IdmappedLowers((m) => console.error(`warning: ${m}`));
  const factory = new WorkspaceFactory(runs, undefined, undefined, lowers);
  const uid = 61050;
  const times: number[] = [];
  let strategy = "";
  let handedOver = false;
  // Everything a candidate's workspace costs: the tmpfs, the overlay, and handing it to the run uid.
  // The first round also makes the uid's idmapped view of the snapshot (once per task and uid).
  for (let i = 0; i < REPS + 1; i++) {
    const ws = await factory.create(snapshot);
    handedOver = await ws.attach(uid);
    if (i > 0) times.push(ws.prepareMs);
    strategy = ws.strategy;
    await ws.close();
  }
  report(
    `workspace per candidate, 10,000 files, owned by the run uid (${strategy}${handedOver ? ", idmapped" : ""}, ms) [goal < 100]`,
    median(times).toFixed(0),
  );
  // The fallback without idmapped mounts: the same overlay, handed over with chown -R in the sandbox.
  const chowns: number[] = [];
  for (let i = 0; i < 3; i++) {
    const ws = await factory.create(snapshot);
    await ws.attach();
    const c0 = performance.now();
    execFileSync("chown", ["-R", "-P", "-h", `${uid}:${uid}`, "--", ws.dir]);
    chowns.push(ws.prepareMs + performance.now() - c0);
    await ws.close();
  }
  report("same, handed over with chown -R instead (fallback, ms)", median(chowns).toFixed(0));
  await lowers.close();
  t0 = performance.now();
  cpSync(snapshot.dir, join(root, "plain-copy"), { recursive: true });
  report("plain copy of the same repository (ms, for comparison)", (performance.now() - t0).toFixed(0));
}

async function throughput(sandbox: SandboxBackend, root: string): Promise<void> {
  const pack = loadTaskPack(join(root, "spin"));
  const tasks = new Map([[pack.spec.id, pack]]);
  const candidates = 6;
  const perMinute: Record<number, number> = {};
  for (const jobs of [1, 2]) {
    // Distinct patches (a comment differs), so that deduplication does not collapse them.
    const rollouts = Array.from({ length: candidates }, (_, i) => ({
      id: `j${jobs}-${i}`,
      taskId: pack.spec.id,
      patch: `${pack.referencePatch!}`.replace("+    return True\n", `+    return True  # ${jobs}-${i}\n`),
    }));
    const t0 = performance.now();
    const verdicts = await verifyRollouts(rollouts, { tasks, sandbox, jobs });
    const seconds = (performance.now() - t0) / 1000;
    if (verdicts.some((v) => !v.passed))
      throw new Error(`a candidate failed: ${JSON.stringify(verdicts.find((v) => !v.passed))}`);
    perMinute[jobs] = (60 * candidates) / seconds;
    report(`throughput --jobs ${jobs} (candidates/min)`, perMinute[jobs]!.toFixed(1));
  }
  report("throughput ratio --jobs 2 / --jobs 1", (perMinute[2]! / perMinute[1]!).toFixed(2));
}

/** Python repositories of the fidelity manifest whose suites need nothing but the host (no registry). */
const GUARD_COST_REPOS = ["hynek/structlog", "marshmallow-code/marshmallow"];
const GUARD_COST_REPS = 5;

async function guardCost(sandbox: SandboxBackend, root: string): Promise<void> {
  const manifest = loadManifest(fileURLToPath(MANIFEST_PATH));
  const repos = manifest.repositories.filter((r) => GUARD_COST_REPOS.includes(r.name));
  if (repos.length !== GUARD_COST_REPOS.length)
    throw new Error(`the fidelity manifest lacks one of ${GUARD_COST_REPOS.join(", ")}`);
  const missing = realcodeSkip(GUARD_COST_REPOS);
  if (missing) {
    report("guards' cost on real repositories' suites", `skipped: ${missing}`);
    return;
  }
  const realcode = resolve(REALCODE!);
  const common = { sandbox, environmentCache: join(root, "environments") };
  const guarded = new Verifier({ ...common, guards: true });
  const bare = new Verifier({ ...common, guards: false });
  try {
    for (const repo of repos) {
      const upstream = await materialize(repo, join(root, "repos"), realcode, root);
      const pack = await wholeSuitePack(repo, upstream, join(root, "suites"));
      await compareSuite(pack, guarded, bare);
      const ratios: number[] = [];
      const times = { guarded: [] as number[], bare: [] as number[] };
      let tests = 0;
      for (let i = 0; i < GUARD_COST_REPS; i++) {
        await Promise.all([guarded.idle(), bare.idle()]);
        const runs = await compareSuite(pack, guarded, bare, i % 2 === 1);
        if (runs.differences.length)
          throw new Error(`${repo.name}: ${runs.differences.length} tests differ with the guards`);
        tests = runs.guarded.tests;
        times.guarded.push(runs.guarded.ms);
        times.bare.push(runs.bare.ms);
        ratios.push(runs.guarded.ms / runs.bare.ms);
      }
      const label = `${repo.name} whole suite (${tests} tests)`;
      report(`${label}: bare (median ms)`, median(times.bare).toFixed(0));
      report(`${label}: guarded (median ms)`, median(times.guarded).toFixed(0));
      report(`${label}: guards' cost, guarded / bare, median of pairs`, median(ratios).toFixed(2));
    }
  } finally {
    await Promise.all([guarded.close(), bare.close()]);
  }
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "gagar-verify-bench-"));
  try {
    const sandbox = await selectBackend("auto");
    report("sandbox backend", sandbox.name);
    await overhead(sandbox, root);
    await groupOverhead(sandbox, root);
    await workspacePrep(root);
    await throughput(sandbox, root);
    await guardCost(sandbox, root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
