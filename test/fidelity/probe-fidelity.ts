import { createLimiter } from "../../src/concurrency/limiter.ts";
import type { Severity } from "../../src/contracts/finding.ts";
import { GroupProber, type ProbedCandidate } from "../../src/probe/group-probes.ts";
import type { SandboxBackend } from "../../src/sandbox/types.ts";
import { type Outcome, Verifier } from "../../src/verify/verifier.ts";
import { importTask, upstreamCache } from "./fidelity.ts";
import type { FidelityManifest } from "./manifest.ts";
import { type FidelityVariants, variantPatch } from "./variants.ts";

/**
 * Behavioural probes (src/probe) on the real-code fidelity suite's tasks, in the verifier's sandbox:
 * every task imported from upstream history as the fidelity suite imports it (fidelity.ts), its honest
 * variants (variants.json) verified on it, and the group {gold patch, passing variants} probed with
 * the gold patch as the task's reference. Nothing here decides: it collects what the verifier and the
 * prober said, and the test (probe-fidelity.network.test.ts) says what must hold.
 */

export interface ProbedSubject {
  /** `gold`, or `variant:<id>`. */
  id: string;
  /** The verifier's verdict on the task (the gold patch's is the import's own run). */
  reason?: Outcome["reason"];
  passed: boolean;
  detail?: string;
}

export interface ProbeFindingSummary {
  severity: Severity;
  message: string;
}

export interface ProbedTaskResult {
  repository: string;
  task: string;
  runner: string;
  importError?: string;
  /** Why a variant's patch could not be made (an edit that no longer applies). */
  variantErrors: string[];
  subjects: ProbedSubject[];
  probes?: number;
  runs?: number;
  probeMs?: number;
  /** Why no comparison was made at all, when none was. */
  skipped?: string;
  unprobed: { id: string; reason: string }[];
  findings: Record<string, ProbeFindingSummary[]>;
  /** Wall time of the whole task: import, variants' verification, probes. */
  ms: number;
}

export interface ProbeFidelityOptions {
  manifest: FidelityManifest;
  variants: FidelityVariants;
  realcode: string;
  workDir: string;
  sandbox: SandboxBackend;
  /** Only these tasks (ids of the manifest). */
  tasks?: readonly string[];
  /** Tasks worked on at once. */
  jobs?: number;
  /** Probe runs at once within a task's group. */
  probeJobs?: number;
  /** The probe budget of each task's group. */
  budgetMs: number;
  log?: (message: string) => void;
}

export const GOLD = "gold";
export const variantId = (id: string) => `variant:${id}`;

export async function runProbeFidelity(options: ProbeFidelityOptions): Promise<ProbedTaskResult[]> {
  const log = options.log ?? (() => {});
  const verifier = new Verifier({ sandbox: options.sandbox, log, warn: log });
  const prober = new GroupProber(verifier);
  const upstreamOf = upstreamCache(options.workDir, options.realcode);
  const limit = createLimiter(options.jobs ?? 2);
  try {
    await verifier.selfTest();
    const work = options.manifest.repositories.flatMap((repo) =>
      repo.tasks
        .filter((task) => !options.tasks || options.tasks.includes(task.id))
        .map((task) =>
          limit(async (): Promise<ProbedTaskResult> => {
            const started = performance.now();
            const result: ProbedTaskResult = {
              repository: repo.name,
              task: task.id,
              runner: repo.runner,
              variantErrors: [],
              subjects: [],
              unprobed: [],
              findings: {},
              ms: 0,
            };
            const finish = () => {
              result.ms = performance.now() - started;
              return result;
            };
            const imported = await importTask(repo, task, upstreamOf, {
              workDir: options.workDir,
              verifier,
              log,
            });
            if ("importError" in imported) {
              result.importError = imported.importError;
              return finish();
            }
            const { pack } = imported;
            const gold = pack.referencePatch ?? "";
            // Judged again on the imported task: the import's own run of it derived failToPass.
            const goldOutcome = await verifier.verify(pack, gold);
            const candidates: ProbedCandidate[] = [];
            const judged = (id: string, patch: string, outcome: Outcome) => {
              result.subjects.push({
                id,
                reason: outcome.reason,
                passed: outcome.passed,
                ...(outcome.detail !== undefined && { detail: outcome.detail }),
              });
              if (outcome.passed) candidates.push({ id, patch, tests: outcome.tests });
            };
            judged(GOLD, gold, goldOutcome);
            const upstream = await upstreamOf(repo);
            for (const variant of options.variants.tasks[task.id] ?? []) {
              let patch: string;
              try {
                patch = await variantPatch(repo, upstream, task, variant);
              } catch (e) {
                result.variantErrors.push((e as Error).message);
                continue;
              }
              judged(variantId(variant.id), patch, await verifier.verify(pack, patch));
            }
            const probed = await prober.probe(pack, candidates, {
              budgetMs: options.budgetMs,
              jobs: options.probeJobs ?? 2,
            });
            result.probes = probed.probes;
            result.runs = probed.runs;
            result.probeMs = probed.durationMs;
            result.unprobed = probed.unprobed;
            if (probed.skipped) result.skipped = probed.skipped;
            for (const [id, findings] of Object.entries(probed.findings)) {
              result.findings[id] = findings.map((f) => ({ severity: f.severity, message: f.message }));
              for (const f of findings) log(`${task.id}: ${id}: ${f.severity}: ${f.message.slice(0, 600)}`);
            }
            log(
              `${task.id}: ${probed.probes} probes, ${probed.runs} runs in ${(probed.durationMs / 1000).toFixed(0)} s; ` +
                `findings ${JSON.stringify(Object.fromEntries(Object.entries(result.findings).map(([id, fs]) => [id, fs.map((f) => f.severity)])))}` +
                `${probed.skipped ? `; skipped: ${probed.skipped}` : ""} (task ${((performance.now() - started) / 1000).toFixed(0)} s)`,
            );
            await verifier.forget(pack);
            return finish();
          }),
        ),
    );
    return await Promise.all(work);
  } finally {
    await verifier.close();
  }
}

/** The results as a table (markdown), for the log and docs/probes.md. */
export function renderProbeTable(results: readonly ProbedTaskResult[]): string {
  const count = (r: ProbedTaskResult, severity: Severity, which: (id: string) => boolean) =>
    Object.entries(r.findings)
      .filter(([id]) => which(id))
      .flatMap(([, fs]) => fs)
      .filter((f) => f.severity === severity).length;
  const severities = (r: ProbedTaskResult, which: (id: string) => boolean) =>
    (["critical", "major", "minor"] as const).map((s) => count(r, s, which)).join(" / ");
  const rows = results.map((r) => {
    const variants = r.subjects.filter((s) => s.id !== GOLD);
    return `| ${r.repository} | ${r.task} | ${r.runner} | ${r.importError ? `import failed: ${r.importError}` : `${variants.filter((v) => v.passed).length}/${variants.length}`} | ${r.probes ?? "–"} | ${r.runs ?? "–"} | ${r.skipped ?? (r.unprobed.length ? r.unprobed.map((u) => `${u.id}: ${u.reason}`).join("; ") : "–")} | ${severities(r, (id) => id === GOLD)} | ${severities(r, (id) => id !== GOLD)} | ${((r.probeMs ?? 0) / 1000).toFixed(0)} |`;
  });
  return [
    "| repository | task | runner | variants passing | probes | runs | not probed | gold: critical / major / minor | variants: critical / major / minor | probe s |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
