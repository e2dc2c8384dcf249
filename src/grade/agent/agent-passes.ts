import type { Finding } from "../../contracts/finding.ts";
import type { Group } from "../../contracts/group.ts";
import type { GradeContext } from "../types.ts";
import type { AgentGraderOptions } from "./agent-grader.ts";
import type { PassRecord } from "./aggregate-passes.ts";
import { CandidateTrees } from "./candidate-trees.ts";
import { AGENT_DEFAULTS } from "./defaults.ts";
import { labelMap, passOrder } from "./labels.ts";
import { buildUserMessage, SYSTEM_PROMPT, scrubIds } from "./prompt.ts";
import { RUN_PROBE_SPEC, TOOL_SPECS } from "./protocol.ts";
import { probeSession } from "./run-probe.ts";
import { runSession, type SessionBudget } from "./session.ts";
import { createToolContext } from "./tool-context.ts";
import { executeTool } from "./toolbox.ts";

/**
 * The agent grader's passes over one group: each shows the passing candidates under fresh labels in
 * its own order, with the hints mapped to those labels, and runs one model session. A server failure
 * or an abort ends the passes at once, since the rest would fail the same way.
 */

/** What every pass of one grader shares. */
export interface PassSettings {
  options: AgentGraderOptions;
  passes: number;
  budget: SessionBudget;
  now: () => number;
}

export async function runPasses(
  { options, passes, budget, now }: PassSettings,
  group: Group,
  hintsById: StaticHints | undefined,
  ctx: GradeContext,
): Promise<PassRecord[]> {
  const passing = group.candidates.filter((c) => c.passed);
  const byId = new Map(passing.map((c) => [c.id, c]));
  const allIds = group.candidates.map((c) => c.id);
  const trees = new CandidateTrees(
    group.task.workspace,
    new Map(passing.map((c) => [c.id, c.patch])),
    options.scratchDir,
  );
  const records: PassRecord[] = [];
  try {
    for (let pass = 0; pass < passes; pass++) {
      const order = passOrder([...byId.keys()], pass, `${options.seed ?? ""}\u0000${group.id}`);
      const { labels, idOf, labelOf } = labelMap(order);
      const toolCtx = createToolContext(
        trees,
        order.map((id, i) => ({ label: labels[i]!, candidate: byId.get(id)! })),
        probeSession(ctx.probeSandbox),
      );
      // Hint texts are ours, but may name other candidates: ids become this pass's labels.
      const hints =
        hintsById &&
        new Map(
          labels.map((l) => [
            l,
            // The static grader restates the probes' critical findings: shown once, with the probes'.
            (hintsById.findings[idOf.get(l)!] ?? [])
              .filter((f) => f.kind !== "behaviour-divergence")
              .map((f) => ({
                ...f,
                message: scrubIds(f.message, labelOf, allIds),
              })),
          ]),
        );
      const probeHints = new Map(
        labels.map((l) => [
          l,
          probeFindings(byId.get(idOf.get(l)!)!).map((f) => ({
            ...f,
            message: scrubIds(f.message, labelOf, allIds),
          })),
        ]),
      );
      const staticView = hintsById?.signals && {
        excessLines: new Map(labels.map((l) => [l, hintsById.signals!.excessLines[idOf.get(l)!] ?? 0])),
        tiers: hintsById.signals.tiers.map((tier) => tier.map((id) => labelOf.get(id)!).sort()),
      };
      const record = await runSession({
        model: options.model,
        system: SYSTEM_PROMPT,
        user: buildUserMessage(group, toolCtx, {
          maxTurns: budget.maxTurns,
          hints,
          staticView,
          probeHints,
        }),
        tools: toolsFor(ctx),
        labels,
        execute: (call) => executeTool(toolCtx, call),
        budget,
        maxOutputTokens: options.maxOutputTokens ?? AGENT_DEFAULTS.maxOutputTokens,
        temperature: options.temperature ?? AGENT_DEFAULTS.temperature,
        signal: ctx.signal,
        now,
      });
      records.push({ ...record, pass, order });
      const outcome = record.outcome;
      if (outcome.kind === "failed" && (outcome.cause === "server" || outcome.cause === "aborted")) break;
    }
  } finally {
    await trees.dispose();
  }
  return records;
}

/** run_probe only where the group's task pack is known. */
export function toolsFor(ctx: GradeContext) {
  return ctx.probeSandbox ? [...TOOL_SPECS, RUN_PROBE_SPEC] : TOOL_SPECS;
}

/** The behavioural probes' findings the pipeline added to a candidate's own (docs/probes.md). */
function probeFindings(candidate: Group["candidates"][number]): Finding[] {
  return (candidate.findings ?? []).filter((f) => f.kind === "behaviour-divergence");
}

/** What the ensemble shows the model from the static grader, by candidate id. */
export interface StaticHints {
  findings: Record<string, Finding[]>;
  /** The static grader's measure of unneeded change and its tiers, when it reports them. */
  signals?: { excessLines: Record<string, number>; tiers: string[][] };
}
