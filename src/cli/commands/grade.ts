import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULTS } from "../../config/defaults.ts";
import { type Group, Group as GroupSchema } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import { ConfigError, InputError } from "../../errors.ts";
import { mapOrdered } from "../../grade/agent/map-ordered.ts";
import { createGrader, graderNames } from "../../grade/registry.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { readJsonl, toJsonlLine } from "../../io/jsonl.ts";
import { checkOutputFile } from "../../io/output-paths.ts";
import { renderTable } from "../../io/table.ts";
import { probeThenGrade } from "../../pipeline/probed-grading.ts";
import { loadTaskPacks } from "../../verify/pack/task-pack.ts";
import { positiveNumber, probeSession } from "../probe-session.ts";
import { type AgentCommandFlags, addAgentOptions, graderOptions } from "./grader.ts";

/** Agent grader flags (--base-url, --model, --passes, --concurrency, …) come from grader.ts. */
interface GradeFlags extends AgentCommandFlags {
  grader: string;
  config?: string;
  out?: string;
  tasks?: string;
  probes: boolean;
  probeBudget: number;
}

export function registerGrade(program: Command): void {
  const command = program
    .command("grade")
    .description(
      "rank the passing candidates of each group by implementation quality (one Ranking per group, JSONL)",
    )
    .argument(
      "<groups>",
      "groups JSONL (schemaVersion 1); a relative task.workspace is resolved against this file's folder",
    )
    .option("--grader <name>", `grader to use: ${graderNames().join(" | ")}`, "static")
    .option("--config <file>", 'JSON options for the grader, e.g. {"weights": {"outside-consensus": 0.5}}')
    .option("--out <file>", "write rankings here (default: stdout); written whole or not at all")
    .option(
      "--tasks <dir>",
      "task packs: groups whose task is among them get behavioural probes in the sandbox before grading (docs/probes.md)",
    )
    .option("--no-probes", "no behavioural probes, even with --tasks")
    .option(
      "--probe-budget <sec>",
      "wall seconds of probe runs per group",
      positiveNumber,
      DEFAULTS.probes.budgetSec,
    )
    .addHelpText(
      "after",
      "\nGroups with fewer than 2 passing candidates get a single tier (or none), with findings.\nOn a terminal, a table per group (tier, candidate, score, top findings) goes to stderr.",
    )
    .action(async (groupsFile: string, flags: GradeFlags) => {
      if (flags.out !== undefined) checkOutputFile(flags.out, "--out");
      const config = flags.config ? readConfig(flags.config) : {};
      const grader = createGrader(flags.grader, graderOptions(flags.grader, flags, process.env, config));
      // Task packs are read (and refused, exit 2) before any group is graded.
      const packs = flags.tasks !== undefined && flags.probes ? loadTaskPacks(flags.tasks) : undefined;
      const table = process.stderr.isTTY === true;
      // A first pass checks every line, so that a bad one further down fails before any ranking is
      // printed; the second streams the groups to the grader (files of many groups need not fit in memory).
      const seen = new Set<string>();
      for await (const { value: group, line } of readJsonl(groupsFile, GroupSchema)) {
        if (seen.has(group.id))
          throw new InputError({ file: groupsFile, line, field: "id" }, `duplicate group id "${group.id}"`);
        seen.add(group.id);
        const workspace = workspaceOf(group, groupsFile);
        if (workspace !== undefined && !isDirectory(workspace))
          throw new InputError(
            { file: groupsFile, line, field: "task.workspace" },
            `no folder at ${workspace} (the task's repository, which the grader reads)`,
          );
      }
      let groups = 0;
      async function* groupsToGrade(): AsyncGenerator<Group> {
        for await (const { value: group } of readJsonl(groupsFile, GroupSchema)) {
          const workspace = workspaceOf(group, groupsFile);
          if (workspace !== undefined) group.task.workspace = workspace;
          yield group;
        }
      }
      const probing = packs && (await probeSession(packs, flags.probeBudget));
      let probed = 0;
      let probeMs = 0;
      try {
        await writeAtomically(flags.out, async (out) => {
          // Up to --concurrency groups are graded at once (a model grader waits on its server); output keeps input order.
          const graded = mapOrdered(groupsToGrade(), flags.concurrency, async (group) => {
            const result = await probeThenGrade(grader, group, probing?.prober);
            if (result.probes) probed++;
            probeMs += result.probeMs;
            return { group, ranking: result.ranking };
          });
          for await (const { group, ranking } of graded) {
            out.write(toJsonlLine(ranking));
            groups++;
            const fallback = ranking.grader.fallback;
            if (fallback)
              process.stderr.write(
                `gagar: group ${group.id}: the ${fallback.from} grader fell back to ${ranking.grader.name}: ${fallback.reason}\n`,
              );
            if (table) process.stderr.write(`${formatRankingTable(group, ranking)}\n`);
          }
        });
      } finally {
        await probing?.close();
      }
      const probes = packs
        ? ` · behavioural probes on ${probed} group${probed === 1 ? "" : "s"} in ${(probeMs / 1000).toFixed(1)} s`
        : "";
      process.stderr.write(
        `graded ${groups} group${groups === 1 ? "" : "s"} with ${grader.name} ${grader.version}${probes}${flags.out ? ` · rankings written to ${flags.out}` : ""}\n`,
      );
    });
  addAgentOptions(command);
}

/** The group's repository folder, a relative path taken from the groups file's folder. */
function workspaceOf(group: Group, groupsFile: string): string | undefined {
  const workspace = group.task.workspace;
  if (!workspace) return undefined;
  return isAbsolute(workspace) ? workspace : resolve(dirname(groupsFile), workspace);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read grader config ${file}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`grader config ${file} is not valid JSON (${(e as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`grader config ${file} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Findings shown per candidate in the terminal table; the JSONL has all of them. */
const TOP_FINDINGS = 2;

/** A readable summary of one ranking: tier (1 = best), candidate, score and its worst findings. */
export function formatRankingTable(group: Group, ranking: Ranking): string {
  const passing = group.candidates.filter((c) => c.passed).length;
  const head = `group ${group.id} · task ${group.task.id} · ${passing}/${group.candidates.length} passed · ${ranking.ranking.length} tier${ranking.ranking.length === 1 ? "" : "s"}`;
  if (ranking.ranking.length === 0) return `${head}\n  (no passing candidate to rank)`;
  const scores = (ranking.scores ?? {}) as Record<string, number>;
  const rows = ranking.ranking.flatMap((tier, t) =>
    tier.map((id) => {
      const findings = ranking.findings[id] ?? [];
      const top = findings
        .slice(0, TOP_FINDINGS)
        .map((f) => `${f.severity} ${f.kind}${f.file ? ` ${f.file}${f.line ? `:${f.line}` : ""}` : ""}`);
      const more = findings.length > TOP_FINDINGS ? ` (+${findings.length - TOP_FINDINGS})` : "";
      return [
        t + 1,
        id,
        scores[id] === undefined ? "-" : scores[id]!.toFixed(2),
        top.length ? top.join("; ") + more : "-",
      ];
    }),
  );
  return `${head}\n${renderTable(["tier", "candidate", "score", "top findings"], rows, "  ")}`;
}
