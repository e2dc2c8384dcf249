import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLimiter } from "../concurrency/limiter.ts";
import type { Finding } from "../contracts/finding.ts";
import type { TestStatus } from "../contracts/verdict.ts";
import { GUARD_FD } from "../verify/guards/guard-setup.ts";
import type { TaskPack } from "../verify/pack/task-pack.ts";
import type { RunOverrides } from "../verify/run/candidate-run.ts";
import type { TestPlan } from "../verify/runners/types.ts";
import type { PlanAhead, PlanRun } from "../verify/verifier.ts";
import { type ProbeRun, readProbeChannel } from "./channel.ts";
import { type CandidateRuns, type Comparison, compareProbeRuns } from "./compare.ts";
import { type ProbePlan, planProbes } from "./plan.ts";
import { probeRunEnv } from "./run-env.ts";

/**
 * Behavioural probes of one group in the verifier's sandbox (phase 2 of docs/probes.md): the task's
 * probe plan (plan.ts) run on the reference patch (once per task and prober: later groups of the task
 * reuse its runs; a second run, to drop nondeterministic observations, only once some candidate
 * differs from the first) and on every passing candidate once — without a reference, every candidate
 * twice — under the task's environment and limits, within a time budget per group, and the runs
 * compared (compare.ts).
 *
 * The probe modules are laid read-only over the workspace like the verifier's canaries, and their
 * observations come back on the trusted runner's second channel (a pipe only the runner reads; the
 * guards are off in these runs), never through a file the code under test could rewrite after the fact.
 */

/** What runs a plan in the sandbox: `Verifier.runPlan`. */
export interface PlanRunner {
  runPlan(
    pack: TaskPack,
    patch: string,
    plan: TestPlan,
    overrides: RunOverrides,
    ahead?: PlanAhead,
  ): Promise<PlanRun | null>;
}

export interface ProbedCandidate {
  id: string;
  patch: string;
  /** The verifier's per-test statuses (the second verdict channel). */
  tests?: Readonly<Record<string, TestStatus>>;
}

export interface GroupProbeOptions {
  /** Wall time for all the group's probe runs; runs that would start later are left out. */
  budgetMs: number;
  /** Probe runs at once. */
  jobs?: number;
}

export interface GroupProbeResult {
  /** `behaviour-divergence` findings by candidate id (candidates without any are absent). */
  findings: Record<string, Finding[]>;
  /** Probes in the task's plan. */
  probes: number;
  /** Sandbox runs made, and the wall time of the whole stage for the group. */
  runs: number;
  durationMs: number;
  /** Candidates left without a comparison (budget spent, run cut short, patch refused), with why. */
  unprobed: { id: string; reason: string }[];
  /** Why no comparison was made at all (no probe adapter, no probe, budget), when none was. */
  skipped?: string;
  comparison?: Comparison;
}

/** Where the helpers write: the second channel of the trusted runner (sandbox-runner.py). */
export const SANDBOX_CHANNEL = `/proc/self/fd/${GUARD_FD}`;
/** The least time a run is given: less would only produce a cut-short run. */
const MIN_RUN_SEC = 1;
/**
 * The key of a task's probe runs among the runs started ahead (one plan per task). A run started ahead
 * keeps the timeout of the run it was started beside, so the budget can be overrun by at most the
 * time that run waited.
 */
const PROBE_RUNS = "behavioural-probes";

export class GroupProber {
  private readonly plans = new Map<string, Promise<{ probe: ProbePlan; tests: TestPlan | null }>>();
  /**
   * The reference's two finished runs per task: the reference is the same for every group of a task,
   * so later groups of it pay only for their candidates.
   */
  private readonly references = new Map<string, ProbeRun[]>();

  constructor(readonly runner: PlanRunner) {}

  /** The task's probe plan and the test plan that runs it (cached per task: the same tests give the same plan). */
  plan(pack: TaskPack): Promise<{ probe: ProbePlan; tests: TestPlan | null }> {
    let plan = this.plans.get(pack.dir);
    if (!plan) {
      plan = planFor(pack);
      this.plans.set(pack.dir, plan);
    }
    return plan;
  }

  async probe(
    pack: TaskPack,
    candidates: readonly ProbedCandidate[],
    options: GroupProbeOptions,
  ): Promise<GroupProbeResult> {
    const started = performance.now();
    const deadline = started + options.budgetMs;
    const result: GroupProbeResult = { findings: {}, probes: 0, runs: 0, durationMs: 0, unprobed: [] };
    const done = (skipped?: string): GroupProbeResult => {
      if (skipped) {
        result.skipped = skipped;
        result.unprobed = candidates.map((c) => ({ id: c.id, reason: skipped }));
      }
      result.durationMs = performance.now() - started;
      return result;
    };
    const { probe, tests } = await this.plan(pack);
    result.probes = probe.probes.length;
    if (!tests || probe.probes.length === 0)
      return done(probe.skipped[0]?.reason ?? "the hidden tests give no probe");
    const limit = createLimiter(options.jobs ?? 1);
    // Runs asked for and not begun yet: while there are, the next one's sandbox starts during this one.
    let waiting = 0;
    const ahead = { key: PROBE_RUNS, readyNext: () => waiting > 0 };
    // One sandbox run of the probe plan on `patch`; null when the budget is spent or the run was cut short.
    const runOnce = (patch: string): Promise<ProbeRun | { failed: string }> => {
      waiting++;
      return limit(async () => {
        waiting--;
        const left = deadline - performance.now();
        if (left < MIN_RUN_SEC * 1000) return { failed: "the group's probe budget is spent" };
        const timeoutSec = Math.max(MIN_RUN_SEC, Math.min(pack.spec.timeoutSec, Math.floor(left / 1000)));
        result.runs++;
        const overrides = { channelEnv: probeRunEnv(pack.spec.test.env, SANDBOX_CHANNEL), timeoutSec };
        const run = await this.runner.runPlan(pack, patch, tests, overrides, ahead);
        if (!run) return { failed: "the gate refused the patch" };
        if (!run.completed)
          return { failed: "the probe run did not finish (the runner's status is missing)" };
        if (run.timedOut) return { failed: `the probe run was cut short at ${timeoutSec} s` };
        return readProbeChannel(run.channels.join("\n"));
      });
    };
    const twice = (patch: string) => Promise.all([runOnce(patch), runOnce(patch)]);

    // Identical patches are one subject: their runs are shared.
    const byPatch = new Map<string, ProbedCandidate[]>();
    for (const c of candidates) byPatch.set(c.patch, [...(byPatch.get(c.patch) ?? []), c]);
    const referencePatch = pack.referencePatch;
    const known = this.references.get(pack.dir);
    const [referenceRuns, ...candidateRuns] = await Promise.all([
      referencePatch === undefined
        ? Promise.resolve(null)
        : known
          ? Promise.resolve(known)
          : Promise.all([runOnce(referencePatch)]),
      ...[...byPatch.keys()].map((patch) => (referencePatch === undefined ? twice(patch) : runOnce(patch))),
    ]);
    let reference = referenceRuns?.every(isRun) ? (referenceRuns as ProbeRun[]) : undefined;
    const compared: CandidateRuns[] = [];
    [...byPatch.values()].forEach((same, i) => {
      const got = candidateRuns[i]!;
      const runs = (Array.isArray(got) ? got : [got]).filter(isRun);
      const failed = (Array.isArray(got) ? got : [got]).find((r) => !isRun(r)) as
        | { failed: string }
        | undefined;
      for (const c of same) {
        if (runs.length === 0) result.unprobed.push({ id: c.id, reason: failed!.failed });
        else compared.push({ id: c.id, runs, ...(c.tests && { tests: c.tests }) });
      }
    });
    const compare = (runs: ProbeRun[] | undefined) =>
      compareProbeRuns({ probes: probe.probes, reference: runs, candidates: compared });
    let comparison = reference && compared.length ? compare(reference) : undefined;
    // The reference's second run only tells which observations are nondeterministic, and that changes
    // the comparison only where a candidate differs from the first run: it is made when one does.
    if (reference && reference.length < 2 && comparison && !agreesThroughout(comparison)) {
      const again = await runOnce(referencePatch!);
      reference = isRun(again) ? [...reference, again] : undefined;
      comparison = reference ? compare(reference) : undefined;
    }
    if (reference) this.references.set(pack.dir, reference);
    // Without the reference's runs, a behaviour is the majority's: at least three candidates to say one.
    if (!reference && compared.length < 3) {
      for (const c of compared) result.unprobed.push({ id: c.id, reason: "too few candidates to compare" });
      const why = referenceRuns && !reference ? "the reference's probe runs did not finish" : undefined;
      result.skipped = why ?? "too few probed candidates and no reference";
      result.durationMs = performance.now() - started;
      return result;
    }
    comparison ??= compare(reference);
    for (const c of comparison.candidates) if (c.findings.length) result.findings[c.id] = c.findings;
    result.comparison = comparison;
    return done();
  }
}

/** No candidate differs from the reference anywhere: no divergence, no finding. */
function agreesThroughout(comparison: Comparison): boolean {
  return comparison.candidates.every((c) => c.divergences.length === 0 && c.findings.length === 0);
}

function isRun(r: ProbeRun | { failed: string }): r is ProbeRun {
  return !("failed" in r);
}

/**
 * Which tests' inputs to nudge: those the task's failToPass names (a pytest id of one parametrized
 * instance names its test; an id without its file names the test of that title path), or every test
 * when none of them is named.
 */
export function focusOn(
  failToPass: readonly string[],
  testIds: readonly string[],
): ((testId: string) => boolean) | undefined {
  const named = (testId: string) =>
    failToPass.some((id) => id === testId || id.startsWith(`${testId}[`) || testId.endsWith(`::${id}`));
  const focused = new Set(testIds.filter(named));
  return focused.size ? (testId) => focused.has(testId) : undefined;
}

/**
 * The probe plan of the task's hidden test modules that hold a failToPass test (nudging those tests'
 * inputs; the other tests of those modules keep their base probe), and the runner's test plan for
 * it: the runner's own command on the probe modules (with its canary modules, which only report to
 * the ignored JUnit channel), the probe modules and helper laid over the workspace beside the
 * runner's files.
 */
async function planFor(pack: TaskPack): Promise<{ probe: ProbePlan; tests: TestPlan | null }> {
  const sources = new Map(
    pack.hiddenTests
      .filter((path) => pack.runner.isTestFile(path))
      .map((path) => [path, readFileSync(join(pack.testsDir, path), "utf8")]),
  );
  const all = await planProbes({ runner: pack.runner.name, tests: sources });
  const focus = focusOn(
    pack.spec.failToPass,
    all.probes.map((p) => p.testId),
  );
  // Modules without a focused test are left out: their tests passed before the fix too, and each
  // module can cost a process of its own (node:test).
  const focused = focus && new Set(all.probes.filter((p) => focus(p.testId)).map((p) => p.file));
  const probe =
    focus && focused
      ? await planProbes({
          runner: pack.runner.name,
          tests: new Map([...sources].filter(([path]) => focused.has(path))),
          focus,
        })
      : all;
  if (probe.testFiles.length === 0) return { probe, tests: null };
  const planned = pack.runner.plan({ command: pack.command, testFiles: probe.testFiles });
  return { probe, tests: { ...planned, files: [...planned.files, ...probe.files] } };
}
