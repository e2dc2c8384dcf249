import { type Group, SCHEMA_VERSION } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import { GraderOutputError } from "../../errors.ts";
import type { ChatModel } from "../../llm/chat-model.ts";
import type { GradeContext, Grader } from "../types.ts";
import { runPasses, type StaticHints, toolsFor } from "./agent-passes.ts";
import { aggregatePasses, mergeFindings, type PassRecord, passUsage } from "./aggregate-passes.ts";
import { AGENT_DEFAULTS } from "./defaults.ts";
import { PROTOCOL_VERSION } from "./protocol.ts";
import type { SessionBudget } from "./session.ts";
import { buildTranscript, type TranscriptSink } from "./transcript.ts";

/**
 * The paper's grader: a tool-using model ranks a group's passing candidates together.
 *
 * K passes show the candidates under fresh labels in different orders (labels.ts); their
 * rankings are mapped back to ids and aggregated by Borda count, and the agreement between passes
 * is recorded as position consistency (aggregate-passes.ts). At least ⌈K/2⌉ passes must submit a
 * valid ranking; otherwise — a budget spent, the model server down — the group gets the static
 * grader's ranking with `grader.fallback = {from, reason}`. A server failure stops the remaining
 * passes at once, since they would fail the same way.
 *
 * The static grader also runs on every group: its critical findings go into the transcript (the
 * SFT export drops sessions that contradict them), and in `ensemble` mode its findings are shown
 * to the model as hints and kept in the output.
 */
export interface AgentGraderOptions {
  model: ChatModel;
  /** The static grader: fallback, hints (ensemble) and critical findings for transcripts. */
  staticGrader: Grader;
  mode?: "agent" | "ensemble";
  passes?: number;
  budget?: Partial<SessionBudget>;
  maxOutputTokens?: number;
  temperature?: number;
  /** Seeds the label orders; the group id is mixed in, so each group gets its own orders. */
  seed?: string;
  transcripts?: TranscriptSink;
  /** Where scratch copies of the repository go; the OS temp dir by default. */
  scratchDir?: string;
  _internal?: { now?: () => number };
}

export function createAgentGrader(options: AgentGraderOptions): Grader {
  const mode = options.mode ?? "agent";
  const passes = options.passes ?? AGENT_DEFAULTS.passes;
  const budget: SessionBudget = {
    maxTurns: options.budget?.maxTurns ?? AGENT_DEFAULTS.maxTurns,
    maxTokens: options.budget?.maxTokens ?? AGENT_DEFAULTS.maxTokens,
    timeoutMs: options.budget?.timeoutMs ?? AGENT_DEFAULTS.timeoutSec * 1000,
  };
  const now = options._internal?.now ?? Date.now;
  const name = mode;
  const version = `protocol-${PROTOCOL_VERSION}/${options.model.modelId}`;

  /** What `ranking.grader` carries besides name and version: model, passes, consistency, usage, time. */
  const stats = (
    records: PassRecord[],
    started: number,
    submitted = 0,
    consistency: number | null = null,
  ) => ({
    model: options.model.modelId,
    passes: records.length,
    passesSubmitted: submitted,
    consistency,
    usage: passUsage(records),
    latencyMs: now() - started,
  });

  return {
    name,
    version,
    async grade(group: Group, ctx: GradeContext = {}): Promise<Ranking> {
      const started = now();
      const passing = group.candidates.filter((c) => c.passed);
      const staticResult = await options.staticGrader.grade(group, ctx).then(
        (ranking) => ({ ok: true as const, ranking }),
        (error: Error) => ({ ok: false as const, error }),
      );
      const staticFindings = staticResult.ok ? staticResult.ranking.findings : {};
      const ensembleFindings = mode === "ensemble" ? staticFindings : undefined;
      const ensembleHints: StaticHints | undefined = ensembleFindings && {
        findings: ensembleFindings,
        signals: staticResult.ok ? staticSignals(staticResult.ranking) : undefined,
      };

      if (passing.length < 2) {
        // Nothing to compare: no model call, the same answer any grader gives.
        return {
          schemaVersion: SCHEMA_VERSION,
          groupId: group.id,
          ranking: passing.length ? [passing.map((c) => c.id)] : [],
          findings: ensembleFindings ?? {},
          grader: { name, version, ...stats([], started) },
        };
      }

      const records = await runPasses({ options, passes, budget, now }, group, ensembleHints, ctx);
      const verdict = aggregatePasses(records, passes);
      let ranking: Ranking;
      if (verdict.ok) {
        ranking = {
          schemaVersion: SCHEMA_VERSION,
          groupId: group.id,
          ranking: verdict.tiers,
          findings: mergeFindings([...(ensembleFindings ? [ensembleFindings] : []), verdict.findings]),
          grader: { name, version, ...stats(records, started, verdict.submitted, verdict.consistency) },
        };
      } else if (staticResult.ok) {
        ranking = {
          ...staticResult.ranking,
          grader: {
            ...staticResult.ranking.grader,
            fallback: { from: name, reason: verdict.reason },
            ...stats(records, started, verdict.submitted, verdict.consistency),
          },
        };
      } else {
        throw new GraderOutputError(
          `group ${group.id}: the ${name} grader failed (${verdict.reason}) and the static fallback failed too: ${staticResult.error.message}`,
        );
      }

      await options.transcripts?.write(
        buildTranscript({
          grader: name,
          model: options.model.modelId,
          group,
          startedAt: started,
          records,
          ranking,
          consistency: verdict.consistency,
          staticFindings,
          latencyMs: now() - started,
          tools: toolsFor(ctx),
        }),
      );
      return ranking;
    },
  };
}

function staticSignals(ranking: Ranking): StaticHints["signals"] {
  const excessLines = (ranking as Record<string, unknown>).excessLines;
  if (excessLines === null || typeof excessLines !== "object") return undefined;
  return { excessLines: excessLines as Record<string, number>, tiers: ranking.ranking };
}
