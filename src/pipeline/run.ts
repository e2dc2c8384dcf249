import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { batchRowsFromStore } from "../batch/from-store.ts";
import { writeBatchJsonl } from "../batch/write-jsonl.ts";
import { writeBatchParquet } from "../batch/write-parquet.ts";
import type { Config } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import { writeAtomically } from "../io/atomic-output.ts";
import { toJsonlLine } from "../io/jsonl.ts";
import { CreatedPaths, SQLITE_SIDECARS } from "../io/output-paths.ts";
import { openStore, type RunStore } from "../store/run-store.ts";
import { runConfigFile, runDirOf, STORE_FILE, stepFilesOf } from "./run-layout.ts";
import { runStep, type StepResult, type StepServices } from "./step.ts";

export interface RunOptions {
  /** Steps the run should have when this call returns (resumed runs count their finished steps). */
  steps: number;
  /** Continue this run id (or the latest with "latest") instead of starting a new run. */
  resume?: string;
  log: (line: string) => void;
  /** Called after each finished step, e.g. to print its report. */
  onStep?: (result: FinishedStep) => void;
}

export interface FinishedStep extends StepResult {
  runId: string;
  stepIdx: number;
  batchJsonl: string;
  batchParquet: string;
  transcripts: string;
  /** `tokens.jsonl`: each assistant turn's sampled tokens, when the policy server reported any. */
  tokens?: string;
}

export interface RunOutcome {
  runId: string;
  storeFile: string;
  runDir: string;
  steps: FinishedStep[];
}

/**
 * Runs (or resumes) RL steps with the configured services, recording everything in the store under
 * `config.out` and writing each step's batch (JSONL + Parquet), transcripts and (when the policy
 * server reported them) token traces to `<out>/runs/<run-id>/step-<k>/`. The resolved config is
 * stored with the run.
 *
 * The services are built before this is called, so a run that cannot start (no sandbox, a bad task
 * pack) has created nothing; if opening the store or the run fails, what this call created is
 * removed. Once a step has begun, the store is kept: a failed step resumes (`--resume`).
 */
export async function runTraining(
  config: Config,
  services: Omit<StepServices, "store">,
  options: RunOptions,
): Promise<RunOutcome> {
  const { store, storeFile, runId, runDir } = openRun(config, options.resume);
  try {
    const stepServices: StepServices = { ...services, store };
    const steps: FinishedStep[] = [];
    for (let stepIdx = 0; stepIdx < options.steps; stepIdx++) {
      const existing = store.getStep(runId, stepIdx);
      if (existing?.status === "done") continue;
      options.log(`step ${stepIdx} of run ${runId}`);
      const result = await runStep(stepServices, {
        runId,
        stepIdx,
        seed: config.seed,
        groupSize: config.groupSize,
        sampling: {
          batchGroups: config.batchGroups,
          maxRounds: config.sampling.maxRounds,
          oversample: config.sampling.oversample,
          onShortfall: config.sampling.onShortfall,
          selection: {
            policy: config.sampling.selection,
            groupSize: config.groupSize,
            explorationFloor: config.sampling.explorationFloor,
          },
        },
        advantage: config.advantage,
        log: options.log,
      });
      const finished = await finishStep(store, config.out, runDir, runId, stepIdx, result);
      steps.push(finished);
      options.onStep?.(finished);
    }
    return { runId, storeFile, runDir, steps };
  } finally {
    store.close();
  }
}

/** Opens (creating if need be) the store and the run; on failure removes what it created. */
function openRun(config: Config, resume: string | undefined) {
  const created = new CreatedPaths();
  let store: RunStore | undefined;
  try {
    created.folder(config.out);
    const storeFile = created.fileToCreate(join(config.out, STORE_FILE), SQLITE_SIDECARS);
    store = openStore(storeFile);
    const runId = chooseRun(store, config, resume);
    const runDir = created.folder(runDirOf(config.out, runId));
    writeFileSync(runConfigFile(runDir), `${JSON.stringify(config, null, 2)}\n`);
    created.keep();
    return { store, storeFile, runId, runDir };
  } catch (e) {
    store?.close();
    created.discard();
    throw e;
  }
}

function chooseRun(store: RunStore, config: Config, resume: string | undefined): string {
  if (resume === undefined) return store.createRun(JSON.parse(JSON.stringify(config)));
  const run = resume === "latest" ? store.latestRun() : store.getRun(resume);
  if (!run) {
    throw new ConfigError(
      resume === "latest"
        ? `no run to resume in ${store.file}`
        : `no run "${resume}" in ${store.file} to resume`,
    );
  }
  return run.id;
}

/**
 * Writes the step's outputs, then marks it done and updates the tasks' pass-rate history, in that
 * order: a crash in between leaves the step `running`, and resuming rewrites the same files.
 */
async function finishStep(
  store: RunStore,
  outDir: string,
  runDir: string,
  runId: string,
  stepIdx: number,
  result: StepResult,
): Promise<FinishedStep> {
  const { dir: stepDir, batchJsonl, batchParquet, transcripts, tokens } = stepFilesOf(runDir, stepIdx);
  mkdirSync(stepDir, { recursive: true });
  // Token traces go to their own file: they are what a token-level trainer loads, and they would
  // dwarf the messages next to them. A candidate's line keeps everything else of its trajectory.
  const withTokens = new Set<string>();
  await writeAtomically(transcripts, (out) => {
    for (const g of result.groups) {
      for (const c of g.candidates) {
        const { turnTokens, ...trajectory } = c.trajectory;
        if (Array.isArray(turnTokens) && turnTokens.length) withTokens.add(`${g.group.id}/${c.id}`);
        out.write(toJsonlLine({ groupId: g.group.id, candidateId: c.id, trajectory }));
      }
    }
  });
  if (withTokens.size) {
    await writeAtomically(tokens, (out) => {
      for (const g of result.groups) {
        for (const c of g.candidates) {
          if (!withTokens.has(`${g.group.id}/${c.id}`)) continue;
          out.write(
            toJsonlLine({ groupId: g.group.id, candidateId: c.id, turnTokens: c.trajectory.turnTokens }),
          );
        }
      }
    });
  }
  const transcriptsRef = relative(outDir, transcripts);
  const tokensRef = relative(outDir, tokens);
  const rows = batchRowsFromStore(store, runId, stepIdx).map((row) => {
    const key = `${row.groupId}/${row.candidateId}`;
    return {
      ...row,
      messagesRef: row.messagesRef ?? `${transcriptsRef}#${key}`,
      tokensRef: row.tokensRef ?? (withTokens.has(key) ? `${tokensRef}#${key}` : null),
    };
  });
  await writeBatchJsonl(batchJsonl, rows);
  await writeBatchParquet(batchParquet, rows);
  // Pass-rate history is not idempotent, so it is counted in the same transaction that marks the
  // step done: a resumed step counts its groups exactly once.
  store.transaction(() => {
    for (const g of result.groups) {
      const passes = g.group.candidates.filter((c) => c.passed).length;
      const attempts = g.group.candidates.length;
      store.recordTaskOutcome(
        g.group.task.id,
        { attempts, passes, informative: passes > 0 && passes < attempts },
        stepIdx,
      );
    }
    store.finishStep(result.stepId, JSON.parse(JSON.stringify(result.metrics)));
  });
  return {
    ...result,
    runId,
    stepIdx,
    batchJsonl,
    batchParquet,
    transcripts,
    ...(withTokens.size ? { tokens } : {}),
  };
}
