import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../errors.ts";
import { parseRecord } from "../io/validate.ts";
import { StepMetrics } from "../metrics/step-metrics.ts";
import { runConfigFile, runDirOf, STORE_FILE, stepFilesOf } from "../pipeline/run-layout.ts";
import { rankingProbes } from "../probe/group-findings.ts";
import { openStore, type RunStore } from "../store/run-store.ts";
import type { CandidateData, GroupData, OutputFile, RunData, StepData } from "./run-data.ts";

/** Which store to read and, when the path named one, which run. */
export interface RunLocation {
  storeFile: string;
  runId?: string;
}

/**
 * Finds the store behind a path the user gave: a run's output folder (`gagar-demo`, holding
 * gagar.sqlite), one run's folder inside it (`gagar-demo/runs/<run-id>`, which also names the run),
 * or the store file itself.
 */
export function locateRun(path: string): RunLocation {
  const target = resolve(path);
  if (!existsSync(target))
    throw new InputError({ file: path }, "does not exist; give a run folder or a store");
  if (!statSync(target).isDirectory()) return { storeFile: target };
  if (existsSync(join(target, STORE_FILE))) return { storeFile: join(target, STORE_FILE) };
  const outDir = dirname(dirname(target));
  if (basename(dirname(target)) === "runs" && existsSync(join(outDir, STORE_FILE)))
    return { storeFile: join(outDir, STORE_FILE), runId: basename(target) };
  throw new InputError(
    { file: path },
    `has no ${STORE_FILE}: give the folder a run wrote (its --out / config "out"), a runs/<run-id> folder in it, or --store`,
  );
}

/**
 * Reads one run (the latest when `runId` is absent) from a store, read-only: its config, every step
 * with its metrics, groups, candidates, verdicts, rankings and advantages. This is the report's
 * only contact with the store.
 */
export function loadRun(location: RunLocation): RunData {
  const store = openStore(location.storeFile, { readonly: true });
  try {
    return readRun(store, location);
  } finally {
    store.close();
  }
}

/**
 * The same from a store that is already open (the service reads its own): the caller keeps it open.
 * `location.storeFile` is what the page names and where the run's files are looked for.
 */
export function readRun(store: RunStore, location: RunLocation): RunData {
  const run = location.runId === undefined ? store.latestRun() : store.getRun(location.runId);
  if (!run) {
    throw new InputError(
      { file: location.storeFile },
      location.runId === undefined ? "holds no run yet" : `has no run "${location.runId}"`,
    );
  }
  const runDir = runDirOf(dirname(location.storeFile), run.id);
  const steps: StepData[] = [];
  for (let idx = 0; ; idx++) {
    const step = store.getStep(run.id, idx);
    if (!step) break;
    const files = stepFilesOf(runDir, idx);
    steps.push({
      idx,
      status: step.status,
      startedAt: step.startedAt,
      finishedAt: step.finishedAt,
      metrics:
        step.metrics &&
        parseRecord(StepMetrics, step.metrics, {
          file: `${location.storeFile} (run ${run.id} step ${idx} metrics)`,
        }),
      files: {
        batchJsonl: outputFile(files.batchJsonl),
        batchParquet: outputFile(files.batchParquet),
        transcripts: outputFile(files.transcripts),
      },
      groups: readGroups(store, step.id),
    });
  }
  return {
    storeFile: location.storeFile,
    runId: run.id,
    createdAt: run.createdAt,
    config: run.config,
    files: { runDir, config: outputFile(runConfigFile(runDir)) },
    steps,
  };
}

function readGroups(store: RunStore, stepId: number): GroupData[] {
  const advantages = new Map(store.stepAdvantages(stepId).map((a) => [`${a.groupId}\0${a.candidateId}`, a]));
  return store.getStepGroups(stepId).map((group) => {
    const ranking = store.groupRankings(group.id).at(-1);
    const probes = rankingProbes(ranking);
    const candidates = group.candidates.map((c): CandidateData => {
      const verdict = store.findVerdict(group.taskId, c.patchSha256);
      return {
        id: c.id,
        patch: c.patch,
        patchSha256: c.patchSha256,
        tokens: c.trajectory.tokens,
        turns: c.trajectory.turns,
        verdict: verdict && { passed: verdict.passed, reason: verdict.reason, detail: verdict.detail },
        advantage: advantages.get(`${group.id}\0${c.id}`),
        findings: [
          ...(verdict?.findings ?? []).map((f) => ({ ...f, source: "verifier" as const })),
          // The grader restates the probes' critical findings; shown once, as the probes'.
          ...(ranking?.findings[c.id] ?? [])
            .filter((f) => !(probes && f.kind === "behaviour-divergence"))
            .map((f) => ({ ...f, source: "grader" as const })),
          ...(probes?.findings[c.id] ?? []).map((f) => ({ ...f, source: "probes" as const })),
        ],
      };
    });
    return {
      id: group.id,
      taskId: group.taskId,
      round: group.round,
      kept: group.kept,
      dropReason: group.dropReason,
      ranking,
      candidates,
    };
  });
}

function outputFile(path: string): OutputFile {
  return { path, exists: existsSync(path) };
}
