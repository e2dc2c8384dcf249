import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Rollout } from "../contracts/rollout.ts";
import type { Verdict } from "../contracts/verdict.ts";
import { ConfigError, SandboxError } from "../errors.ts";
import { createStaticGrader } from "../grade/static/grader.ts";
import { ReplaySource } from "../rollout/replay.ts";
import { type BackendName, selectBackend } from "../sandbox/select.ts";
import { patchSha256 } from "../store/patch-sha.ts";
import { openStore } from "../store/run-store.ts";
import { loadTaskPacks, type TaskPack } from "../verify/pack/task-pack.ts";
import { Verifier } from "../verify/verifier.ts";
import { verifyRollouts } from "../verify/verify-rollouts.ts";
import { type Arm, bitCount, passingMask, subsetsOf, type TaskArms } from "./arms.ts";

/**
 * Passing arms per task the experiment accepts: it grades every subset of them (2^k − k − 1 static
 * gradings), which stays a few seconds up to this size.
 */
export const MAX_PASSING_ARMS = 12;

export interface LoadArmsOptions {
  tasksDir: string;
  /** `<task-id>.jsonl` recorded rollouts, as `gagar run`'s replay source reads them. */
  rolloutsDir: string;
  /** A run store whose verdicts (keyed by task and patch content) are used instead of verifying again. */
  storeFile?: string;
  sandbox: BackendName;
  verifyJobs: number;
  log: (line: string) => void;
}

export interface LoadedArms {
  tasks: TaskArms[];
  verdicts: { fromStore: number; verified: number };
  grader: { name: string; version: string; gradings: number };
}

/**
 * Builds the experiment's arms from a task pack and its recorded rollouts, with real components:
 * verdicts from the sandboxed verifier (or a store that already holds them) and tiers from the
 * static grader, run on every set of two or more distinct passing rollouts of a task.
 */
export async function loadArms(options: LoadArmsOptions): Promise<LoadedArms> {
  const packs = loadTaskPacks(options.tasksDir);
  const replay = new ReplaySource(options.rolloutsDir, 0);
  const taskIds = [...packs.keys()]
    .filter((id) => existsSync(join(options.rolloutsDir, `${id}.jsonl`)))
    .sort();
  if (!taskIds.length)
    throw new ConfigError(
      `no task of ${options.tasksDir} has recorded rollouts (<task-id>.jsonl) in ${options.rolloutsDir}`,
    );
  const recorded = new Map<string, Rollout[]>();
  for (const id of taskIds)
    recorded.set(id, checkRecorded(id, await replay.recorded(id), options.rolloutsDir));

  const all = [...recorded.values()].flat();
  const verdicts = new Map<Rollout, Verdict>();
  if (options.storeFile) {
    const store = openStore(options.storeFile, { readonly: true });
    try {
      for (const r of all) {
        const v = store.findVerdict(r.taskId, patchSha256(r.patch));
        if (v) verdicts.set(r, v);
      }
    } finally {
      store.close();
    }
  }
  const fromStore = verdicts.size;
  const missing = all.filter((r) => !verdicts.has(r));
  if (missing.length) await verifyMissing(missing, packs, options, verdicts);
  options.log(
    `verdicts: ${fromStore} from ${options.storeFile ?? "no store"}, ${missing.length} verified now`,
  );

  const grader = createStaticGrader();
  let gradings = 0;
  const tasks: TaskArms[] = [];
  for (const id of taskIds) {
    const rollouts = recorded.get(id)!;
    const arms: Arm[] = rollouts.map((r) => ({
      id: r.id,
      passed: verdicts.get(r)!.passed,
      reason: verdicts.get(r)!.reason,
      tokens: r.trajectory!.tokens!,
    }));
    const passing = passingMask(arms);
    if (bitCount(passing) > MAX_PASSING_ARMS)
      throw new ConfigError(
        `task ${id} has ${bitCount(passing)} passing recorded rollouts; the experiment grades every subset ` +
          `of them and takes at most ${MAX_PASSING_ARMS} (record fewer, or split the file)`,
      );
    const pack = packs.get(id)!;
    const tiersBySubset = new Map<number, number[]>();
    for (const mask of subsetsOf(passing, 2)) {
      const members = rollouts.filter((_, i) => mask & (1 << i));
      const ranking = await grader.grade({
        schemaVersion: 1,
        id: `${id}/subset-${mask}`,
        task: { id, statement: pack.spec.statement, language: pack.spec.language, workspace: pack.repoDir },
        candidates: members.map((r) => ({ id: r.id, patch: r.patch, passed: true, reward: 1 })),
      });
      gradings++;
      const tierOf = new Map(ranking.ranking.flatMap((tier, t) => tier.map((rid) => [rid, t] as const)));
      tiersBySubset.set(
        mask,
        rollouts.map((r, i) => (mask & (1 << i) ? (tierOf.get(r.id) ?? -1) : -1)),
      );
    }
    tasks.push({ taskId: id, arms, tiersBySubset });
  }
  options.log(`tiers: ${gradings} groups of distinct passing rollouts ranked by static ${grader.version}`);
  return {
    tasks,
    verdicts: { fromStore, verified: missing.length },
    grader: { name: grader.name, version: grader.version, gradings },
  };
}

/** Arms need token counts and fit a 31-bit subset mask. */
function checkRecorded(taskId: string, rollouts: Rollout[], dir: string): Rollout[] {
  const file = join(dir, `${taskId}.jsonl`);
  if (rollouts.length > 30)
    throw new ConfigError(
      `${file}: ${rollouts.length} recorded rollouts; the experiment takes at most 30 per task`,
    );
  const untimed = rollouts.find((r) => r.trajectory?.tokens === undefined);
  if (untimed)
    throw new ConfigError(
      `${file}: rollout ${untimed.id} has no trajectory.tokens; the experiment is about length`,
    );
  return rollouts;
}

async function verifyMissing(
  missing: Rollout[],
  packs: ReadonlyMap<string, TaskPack>,
  options: LoadArmsOptions,
  into: Map<Rollout, Verdict>,
): Promise<void> {
  const sandbox = await selectBackend(options.sandbox, { warn: options.log });
  options.log(`verifying ${missing.length} recorded rollouts in the ${sandbox.name} sandbox`);
  const verifier = new Verifier({ sandbox, warn: options.log });
  try {
    const verdicts = await verifyRollouts(missing, {
      tasks: packs,
      verifier,
      jobs: options.verifyJobs,
      onProgress: (p) => {
        if (p.done % 10 === 0 || p.done === p.total) options.log(`  verified ${p.done}/${p.total}`);
      },
    });
    const broken = verdicts.find((v) => v.reason === "infra-error");
    if (broken)
      throw new SandboxError(`verifying ${broken.rolloutId} failed: ${broken.detail ?? "infra-error"}`, true);
    missing.forEach((r, i) => {
      into.set(r, verdicts[i]!);
    });
  } finally {
    await verifier.close();
  }
}
