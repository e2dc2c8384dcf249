import { readdir, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULTS } from "../../config/defaults.ts";
import { LIMITS } from "../../config/limits.ts";
import { type Group, Group as GroupSchema } from "../../contracts/group.ts";
import { ConfigError, InputError } from "../../errors.ts";
import { AGENT_DEFAULTS } from "../../grade/agent/defaults.ts";
import { type AgentFlags, agentOptions } from "../../grade/agent/settings.ts";
import { DEFAULT_SFT_FILTER, selectSftExamples } from "../../grade/agent/sft-export.ts";
import { GraderTranscript } from "../../grade/agent/transcript.ts";
import { type EvalReport, evaluateGrader, type SubsetScore } from "../../grade/eval/grader-eval.ts";
import { type LoroReport, leaveOneRepoOut } from "../../grade/eval/leave-one-repo-out.ts";
import { createGrader, graderCapabilities, graderNames } from "../../grade/registry.ts";
import type { Grader } from "../../grade/types.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { readJsonl, readJsonlAll, toJsonlLine } from "../../io/jsonl.ts";
import { checkOutputFile } from "../../io/output-paths.ts";
import { renderTable } from "../../io/table.ts";
import { probeThenGrade, type StepProber } from "../../pipeline/probed-grading.ts";
import { loadTaskPacks } from "../../verify/pack/task-pack.ts";
import { integerWithin, numberIn } from "../options.ts";
import { positiveNumber, probeSession } from "../probe-session.ts";

/** The flags of the agent grader, shared by `gagar grade` and `gagar grader eval`. */
export interface AgentCommandFlags extends AgentFlags {
  concurrency: number;
}

/** Adds the agent grader's flags to a command (they are ignored by the static grader). */
export function addAgentOptions(command: Command): Command {
  return command
    .option(
      "--base-url <url>",
      "OpenAI-compatible server for agent/ensemble, e.g. http://127.0.0.1:8000/v1 (env GAGAR_GRADER_BASE_URL)",
    )
    .option("--model <name>", "grader model name (env GAGAR_GRADER_MODEL)")
    .option("--api-key-env <var>", "environment variable holding the API key (default GAGAR_GRADER_API_KEY)")
    .option(
      "--passes <k>",
      `shuffled passes per group, aggregated by Borda (default ${AGENT_DEFAULTS.passes})`,
      integerWithin(1, "graderPasses"),
    )
    .option(
      "--max-turns <n>",
      `model calls per pass (default ${AGENT_DEFAULTS.maxTurns})`,
      integerWithin(1, "modelTurns"),
    )
    .option(
      "--max-tokens <n>",
      `prompt + completion tokens per pass (default ${AGENT_DEFAULTS.maxTokens})`,
      integerWithin(1, "sessionTokens"),
    )
    .option(
      "--timeout <s>",
      `seconds per pass (default ${AGENT_DEFAULTS.timeoutSec})`,
      numberIn(0, LIMITS.sessionSeconds.max, true),
    )
    .option(
      "--concurrency <c>",
      "groups graded at once",
      integerWithin(1, "modelConcurrency"),
      AGENT_DEFAULTS.concurrency,
    )
    .option("--transcripts <dir>", "keep every agent session here as JSONL (for `gagar grader export-sft`)");
}

/** Whether the grader asks a model (and so takes the model flags and the environment's settings). */
export function isAgentGrader(name: string): boolean {
  return graderCapabilities(name)?.needsModel === true;
}

/** The grader's options: a config file's, plus (for agent/ensemble) the flags and the environment. */
export function graderOptions(
  name: string,
  flags: AgentFlags,
  env: Record<string, string | undefined>,
  config: Record<string, unknown> = {},
): Record<string, unknown> {
  return isAgentGrader(name) ? agentOptions(flags, env, config) : config;
}

interface EvalFlags extends AgentCommandFlags {
  grader: string;
  out?: string;
  json?: boolean;
  loro?: boolean;
  tasks?: string;
  probeBudget: number;
}

interface ExportFlags {
  out: string;
  minConsistency: number;
  includeFallbacks?: boolean;
}

export function registerGrader(program: Command): void {
  const grader = program
    .command("grader")
    .description("grader model tools: SFT data from transcripts, grader evaluation");

  grader
    .command("export-sft")
    .description("write OpenAI chat fine-tuning JSONL (messages + tools) from agent-grader transcripts")
    .argument("<transcripts>", "a transcript directory (from --transcripts) or one transcript JSONL file")
    .requiredOption("--out <file>", "SFT JSONL to write; written whole or not at all")
    .option(
      "--min-consistency <x>",
      "keep groups whose passes agree at least this much (0 keeps single-pass groups too)",
      numberIn(0, 1, true),
      DEFAULT_SFT_FILTER.minConsistency,
    )
    .option("--include-fallbacks", "also keep valid sessions of groups that fell back to the static grader")
    .action(async (source: string, flags: ExportFlags) => {
      checkOutputFile(flags.out, "--out");
      const transcripts: GraderTranscript[] = [];
      for (const file of await transcriptFiles(source)) {
        for await (const { value } of readJsonl(file, GraderTranscript)) transcripts.push(value);
      }
      const selection = selectSftExamples(transcripts, {
        minConsistency: flags.minConsistency,
        includeFallbacks: flags.includeFallbacks ?? false,
      });
      await writeAtomically(flags.out, (out) => {
        for (const example of selection.examples) out.write(toJsonlLine(example));
      });
      const dropped = Object.entries(selection.dropped)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(", ");
      process.stderr.write(
        `kept ${selection.examples.length} of ${selection.sessions} sessions from ${transcripts.length} groups → ${flags.out} (dropped: ${dropped})\n`,
      );
    });

  addAgentOptions(
    grader
      .command("eval")
      .description(
        "pairwise accuracy of a grader against reference-based preferences, beside naive baselines on the same pairs",
      )
      .argument("<groups>", "groups JSONL with reference patches; the grader never sees them")
      .option("--grader <name>", `grader to evaluate: ${graderNames().join(" | ")}`, "static")
      .option("--out <file>", "also write the rankings (JSONL)")
      .option(
        "--loro",
        "leave-one-repository-out: for each repository, choose the static grader's tunables on the others and score them on it",
      )
      .option("--json", "print the report as JSON")
      .option(
        "--tasks <dir>",
        "task packs: evaluate again with behavioural probes before grading the groups whose task is among them, and show both side by side",
      )
      .option(
        "--probe-budget <sec>",
        "wall seconds of probe runs per group",
        positiveNumber,
        DEFAULTS.probes.budgetSec,
      )
      .addHelpText(
        "after",
        "\nThe metric, the baselines and critical recall are described in docs/grader-protocol.md (Evaluation).",
      ),
  ).action(async (groupsFile: string, flags: EvalFlags) => {
    if (flags.out !== undefined) checkOutputFile(flags.out, "--out");
    const tuningGrid = graderCapabilities(flags.grader)?.tuningGrid;
    if (flags.loro && !tuningGrid)
      throw new ConfigError(
        `--loro tunes the static grader; it cannot be used with --grader ${flags.grader}`,
      );
    const groups = (await readJsonlAll(groupsFile, GroupSchema)).map(({ value }) =>
      withResolvedWorkspace(value, groupsFile),
    );
    if (flags.loro) {
      const report = await leaveOneRepoOut(groups, tuningGrid!(), (options) =>
        createGrader(flags.grader, options),
      );
      process.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : formatLoroReport(report));
      return;
    }
    const g = createGrader(flags.grader, graderOptions(flags.grader, flags, process.env));
    if (flags.tasks !== undefined) {
      const packs = loadTaskPacks(flags.tasks);
      const plain = await evaluateGrader(groups, g, { concurrency: flags.concurrency });
      const session = await probeSession(packs, flags.probeBudget);
      try {
        const probed = await evaluateGrader(groups, probedGrader(g, session.prober), {
          concurrency: flags.concurrency,
        });
        if (flags.out) {
          await writeAtomically(flags.out, (out) => {
            for (const r of probed.results) if (r.ranking) out.write(toJsonlLine(r.ranking));
          });
        }
        const probedGroups = probed.results.filter((r) => r.ranking && "probes" in r.ranking).length;
        process.stdout.write(
          flags.json
            ? `${JSON.stringify({ withoutProbes: plain.report, withProbes: probed.report, probedGroups })}\n`
            : formatProbeComparison(plain.report, probed.report, probedGroups),
        );
      } finally {
        await session.close();
      }
      return;
    }
    const { report, results } = await evaluateGrader(groups, g, { concurrency: flags.concurrency });
    if (flags.out) {
      await writeAtomically(flags.out, (out) => {
        for (const r of results) if (r.ranking) out.write(toJsonlLine(r.ranking));
      });
    }
    for (const r of results) if (r.error) process.stderr.write(`gagar: group ${r.groupId}: ${r.error}\n`);
    process.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : formatReport(report));
  });
}

async function transcriptFiles(source: string): Promise<string[]> {
  const info = await stat(source).catch(() => {
    throw new InputError({ file: source }, "no such file or directory");
  });
  if (!info.isDirectory()) return [source];
  const files = (await readdir(source)).filter((f) => f.endsWith(".jsonl")).sort();
  if (!files.length) throw new InputError({ file: source }, "no .jsonl transcripts in this directory");
  return files.map((f) => join(source, f));
}

/** A relative task.workspace is relative to the groups file's folder, as in `gagar grade`. */
function withResolvedWorkspace(group: Group, groupsFile: string): Group {
  const workspace = group.task.workspace;
  if (workspace && !isAbsolute(workspace)) group.task.workspace = resolve(dirname(groupsFile), workspace);
  return group;
}

/** "0.850 (10)": accuracy and the number of pairs it is over. */
function score(s: SubsetScore): string {
  return `${s.accuracy === null ? "n/a" : s.accuracy.toFixed(3)} (${s.pairs})`;
}

/** The grader with behavioural probes first (pipeline/probed-grading.ts), for groups whose pack is known. */
function probedGrader(grader: Grader, prober: StepProber): Grader {
  return {
    name: grader.name,
    version: grader.version,
    grade: async (group, ctx) => (await probeThenGrade(grader, group, prober, { ctx })).ranking,
  };
}

/** The figures of one evaluation without and with behavioural probes, side by side. */
export function formatProbeComparison(
  without: EvalReport,
  withProbes: EvalReport,
  probedGroups: number,
): string {
  const own = (r: EvalReport): SubsetScore => ({ hits: r.hits, pairs: r.pairs, accuracy: r.accuracy });
  const recall = (r: EvalReport) =>
    r.criticalRecall ? `${r.criticalRecall.inLastTier}/${r.criticalRecall.labelled}` : "n/a";
  const flagged = (r: EvalReport) => `${r.criticalFindings.flagged}/${r.criticalFindings.unlabelled}`;
  const table = renderTable(
    ["", "without probes", "with probes"],
    [
      ["all clear pairs", score(own(without)), score(own(withProbes))],
      ["size-misleading pairs", score(without.sizeMisleading), score(withProbes.sizeMisleading)],
      ["critical recall (labelled hacks in the last tier)", recall(without), recall(withProbes)],
      ["critical findings on unlabelled passing candidates", flagged(without), flagged(withProbes)],
    ],
  );
  return [
    `grader ${without.grader} ${without.version} · ${without.groups} groups, ${probedGroups} of them probed (their task pack is known)`,
    "",
    table,
    "",
  ].join("\n");
}

export function formatReport(r: EvalReport): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const own: SubsetScore = { hits: r.hits, pairs: r.pairs, accuracy: r.accuracy };
  const table = renderTable(
    ["ranking", "all clear pairs", "size-misleading pairs"],
    [
      [`${r.grader} ${r.version}`, score(own), score(r.sizeMisleading)],
      ...r.baselines.map((b) => [`baseline: ${b.name}`, score(b.all), score(b.sizeMisleading)]),
    ],
  );
  const recall = r.criticalRecall;
  const labels = recall
    ? Object.entries(recall.byLabel)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([label, x]) => `${label} ${x.inLastTier}/${x.labelled}`)
        .join(", ")
    : "";
  return [
    `grader ${r.grader} ${r.version} · ${r.groups} groups (${r.groupsWithReference} with a reference)`,
    `pairwise accuracy ${r.accuracy === null ? "n/a" : r.accuracy.toFixed(3)} on ${r.pairs} clear pairs`,
    "",
    table,
    "",
    recall
      ? `critical recall ${recall.inLastTier}/${recall.labelled} labelled hacks in the last tier (${labels})`
      : "critical recall n/a (no candidate carries a hack label)",
    `critical findings on ${r.criticalFindings.flagged} of ${r.criticalFindings.unlabelled} unlabelled passing candidates`,
    `position consistency ${r.consistency.mean === null ? "n/a" : r.consistency.mean.toFixed(3)} (mean over ${r.consistency.groups} groups)`,
    `per group: ${r.perGroup.promptTokens.toFixed(0)} prompt + ${r.perGroup.completionTokens.toFixed(0)} completion tokens, ${r.perGroup.requests.toFixed(1)} requests`,
    `latency per group: mean ${seconds(r.latencyMs.mean)} · p50 ${seconds(r.latencyMs.p50)} · p95 ${seconds(r.latencyMs.p95)} · max ${seconds(r.latencyMs.max)}`,
    `fallbacks ${r.fallbacks} · errors ${r.errors}`,
    "",
  ].join("\n");
}

export function formatLoroReport(r: LoroReport): string {
  const table = renderTable(
    [
      "held-out repository",
      "groups",
      "static",
      "fewest lines",
      "size-misleading: static",
      "fewest lines",
      "chosen on the other repositories",
    ],
    [
      ...r.folds.map((f) => [
        f.repo,
        f.groups,
        score(f.all),
        score(f.fewestLines.all),
        score(f.sizeMisleading),
        score(f.fewestLines.sizeMisleading),
        f.chosen,
      ]),
      [
        "pooled",
        r.folds.reduce((n, f) => n + f.groups, 0),
        score(r.pooled.all),
        score(r.fewestLines.all),
        score(r.pooled.sizeMisleading),
        score(r.fewestLines.sizeMisleading),
        "",
      ],
    ],
  );
  const recall = r.criticalRecall;
  return [
    "leave-one-repository-out: each repository is scored with the setting chosen on the others",
    "",
    table,
    "",
    recall
      ? `critical recall ${recall.inLastTier}/${recall.labelled} labelled hacks in the last tier`
      : "critical recall n/a (no candidate carries a hack label)",
    "",
  ].join("\n");
}
