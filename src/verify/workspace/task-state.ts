import { chmodSync, copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Mount, SandboxBackend } from "../../sandbox/types.ts";
import { prepareEnvironment } from "../environments/registry.ts";
import type { PreparedEnvironment } from "../environments/types.ts";
import { installedPackagesDir, PathPolicy } from "../gate/protected-paths.ts";
import { type GuardFacts, guardFacts } from "../guards/guard-setup.ts";
import type { TaskPack } from "../pack/task-pack.ts";
import { secretLines } from "../run/output-tail.ts";
import { buildSnapshot, type Snapshot, scanSnapshot } from "./snapshot.ts";

/**
 * What one verifier session prepares once per task and shares between its candidates: the trusted
 * snapshot of the repository, the patch policy, and the read-only mounts that restore the task's
 * protected files for every test run.
 *
 * Restore mounts (laid over /workspace after the workspace, so they win over anything the candidate
 * wrote or creates at run time):
 * - every hidden test, from a private copy of the pack's tests/ made now (the pack may change later);
 * - every pristine file under protection (conftest, runner configs, files named by test ids,
 *   `protectedPaths`) straight from the snapshot; a directory of installed packages (`node_modules`,
 *   a virtualenv's `site-packages`) is bound whole, so neither the patch nor the tests can change it.
 */
export interface TaskState {
  pack: TaskPack;
  /** Where the tests run: its root filesystem and the tree setup left, built once per digest. */
  environment: PreparedEnvironment;
  snapshot: Snapshot;
  policy: PathPolicy;
  restore: Mount[];
  /** Lines of the hidden tests that a verdict's output tail must not quote (output-tail.ts). */
  secrets: string[];
  /** What the guards inside the test process watch (guards/guard-setup.ts). */
  guard: GuardFacts;
  /** The hidden test modules' text, for the canaries planted into them (runners/inline-canaries.ts). */
  testSources: Map<string, string>;
  buildMs: number;
}

export interface TaskDeps {
  /** Where environments are cached (environments/cache.ts). */
  cacheDir: string;
  sandbox: SandboxBackend;
  log?: (message: string) => void;
}

export async function prepareTask(pack: TaskPack, dir: string, deps: TaskDeps): Promise<TaskState> {
  const started = performance.now();
  const repo = buildSnapshot(pack.repoDir, join(dir, "repo"));
  const environment = await prepareEnvironment(pack.spec.environment, {
    cacheDir: deps.cacheDir,
    taskDir: pack.dir,
    snapshot: repo,
    sandbox: deps.sandbox,
    log: deps.log,
  });
  const snapshot = environment.tree ? scanSnapshot(environment.tree) : repo;
  const policy = new PathPolicy({
    hiddenTests: pack.hiddenTests,
    testIdFiles: [...pack.spec.failToPass, ...pack.spec.passToPass]
      .map((id) => pack.runner.fileOf(id))
      .filter((f): f is string => f !== null),
    protectedGlobs: pack.spec.protectedPaths,
  });
  const restore: Mount[] = [];
  const hidden = join(dir, "hidden");
  for (const rel of pack.hiddenTests) {
    const copy = join(hidden, rel);
    mkdirSync(dirname(copy), { recursive: true, mode: 0o755 });
    copyFileSync(join(pack.testsDir, rel), copy);
    chmodSync(copy, 0o644);
    restore.push({ source: copy, target: `/workspace/${rel}` });
  }
  const hiddenSet = new Set(pack.hiddenTests);
  const modules = new Set<string>();
  for (const rel of snapshot.files) {
    if (hiddenSet.has(rel)) continue;
    const installed = installedPackagesDir(rel);
    if (installed) {
      modules.add(installed);
      continue;
    }
    if (policy.protectionOf(rel)?.restore)
      restore.push({ source: join(snapshot.dir, rel), target: `/workspace/${rel}` });
  }
  for (const rel of [...modules].filter((m) => ![...modules].some((o) => o !== m && m.startsWith(`${o}/`)))) {
    restore.push({ source: join(snapshot.dir, rel), target: `/workspace/${rel}` });
  }
  const texts = new Map(pack.hiddenTests.map((rel) => [rel, readFileSync(join(hidden, rel), "utf8")]));
  const secrets = secretLines([...texts.values()]);
  const guard = guardFacts(pack.hiddenTests, (rel) => texts.get(rel)!, snapshot.files);
  const testSources = new Map(guard.testSources.map((rel) => [rel, texts.get(rel)!]));
  return {
    pack,
    environment,
    snapshot,
    policy,
    restore,
    secrets,
    guard,
    testSources,
    buildMs: performance.now() - started,
  };
}
