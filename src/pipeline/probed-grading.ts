import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { Verdict } from "../contracts/verdict.ts";
import type { ProbeSandbox } from "../grade/agent/run-probe.ts";
import type { GradeContext, Grader } from "../grade/types.ts";
import { type ProbeSummary, probeSummaryOf, withProbeFindings } from "../probe/group-findings.ts";
import { type GroupProber, type PlanRunner, GroupProber as Prober } from "../probe/group-probes.ts";
import type { TaskPack } from "../verify/pack/task-pack.ts";

/**
 * Grading with behavioural probes first, the same way wherever a group is graded (`gagar run`, the
 * demo, `gagar grade --tasks`, the service's grade units): the probes' findings join the candidates'
 * own, the grader ranks that group, and the ranking carries the probes' summary (`probes`).
 */

/** Runs the behavioural probes of a group (src/probe/group-probes.ts); null when its task has no pack here. */
export interface StepProber {
  probe(
    taskId: string,
    group: Group,
    verdicts?: readonly (Verdict | undefined)[],
  ): Promise<ProbeSummary | null>;
  /** The task's pack and sandbox for the agent grader's run_probe; null when the pack is not here. */
  sandbox?(taskId: string): Promise<ProbeSandbox | null>;
}

export interface ProbeSettings {
  budgetSec: number;
  /** Probe runs at once. */
  jobs: number;
  /** The agent grader's run_probe budgets (ProbeSandbox); its defaults when left out. */
  runProbe?: { callSec: number; passSec: number };
}

/** Probes a group's passing candidates with the task pack `packOf` gives, on `runner`'s sandbox. */
export function packProber(
  packOf: (taskId: string) => TaskPack | undefined | Promise<TaskPack | undefined>,
  runner: PlanRunner | GroupProber,
  settings: ProbeSettings,
): StepProber {
  const prober = runner instanceof Prober ? runner : new Prober(runner);
  return {
    async probe(taskId, group, verdicts) {
      const pack = await packOf(taskId);
      if (!pack) return null;
      const candidates = group.candidates.flatMap((c, i) =>
        c.passed ? [{ id: c.id, patch: c.patch, ...(verdicts?.[i] && { tests: verdicts[i]!.tests }) }] : [],
      );
      return prober.probe(pack, candidates, { budgetMs: settings.budgetSec * 1000, jobs: settings.jobs });
    },
    async sandbox(taskId) {
      const pack = await packOf(taskId);
      return pack ? { pack, runner: prober.runner, ...settings.runProbe } : null;
    },
  };
}

export interface ProbedRanking {
  ranking: Ranking;
  probes: ProbeSummary | null;
  /** Wall time of the probes. */
  probeMs: number;
}

/** Probes the group (when it has two passing candidates and `prober` is given), then grades it. */
export async function probeThenGrade(
  grader: Grader,
  group: Group,
  prober: StepProber | undefined,
  options: { verdicts?: readonly (Verdict | undefined)[]; ctx?: GradeContext } = {},
): Promise<ProbedRanking> {
  const started = performance.now();
  const passing = group.candidates.filter((c) => c.passed).length;
  const probes = prober && passing >= 2 ? await prober.probe(group.task.id, group, options.verdicts) : null;
  const probeMs = performance.now() - started;
  const sandbox = prober?.sandbox && passing >= 2 ? await prober.sandbox(group.task.id) : null;
  const ctx = sandbox ? { ...options.ctx, probeSandbox: sandbox } : options.ctx;
  const ranking = await grader.grade(probes ? withProbeFindings(group, probes.findings) : group, ctx);
  return { ranking: probes ? { ...ranking, probes: probeSummaryOf(probes) } : ranking, probes, probeMs };
}
