import { type Command, Option } from "commander";
import { estimatorNames, getEstimator } from "../../advantage/estimators.ts";
import {
  type AdvantageOptions,
  computeGroupAdvantages,
  type GroupAdvantages,
} from "../../advantage/group-advantages.ts";
import { DEFAULTS } from "../../config/defaults.ts";
import { Group as GroupSchema } from "../../contracts/group.ts";
import { type Ranking, RankingInput } from "../../contracts/ranking.ts";
import { InputError } from "../../errors.ts";
import { writeAtomically } from "../../io/atomic-output.ts";
import { readJsonl, readJsonlAll, toJsonlLine } from "../../io/jsonl.ts";
import { checkOutputFile } from "../../io/output-paths.ts";
import { renderTable, signed } from "../../io/table.ts";
import { numberIn } from "../options.ts";

interface AdvantagesFlags {
  rankings?: string;
  estimator: string;
  scheme: AdvantageOptions["scheme"];
  lambda: number;
  preserve: AdvantageOptions["preserve"];
  veto: AdvantageOptions["veto"];
  out?: string;
  quiet?: boolean;
}

/** Groups whose side-by-side table is printed before the summary switches to one line per group. */
const DETAILED_GROUPS = 20;

export function registerAdvantages(program: Command): void {
  program
    .command("advantages")
    .description("compute GRPO-family advantages with GAGAR redistribution for groups (JSONL)")
    .argument("<groups>", "groups JSONL (schemaVersion 1), e.g. from `gagar verify --groups-out`")
    .option(
      "--rankings <file>",
      "rankings JSONL from `gagar grade`, or your own grader's {groupId, ranking}; without it no credit is redistributed",
    )
    .option("--estimator <name>", `base estimator: ${estimatorNames().join(" | ")}`, "grpo")
    .addOption(
      new Option("--scheme <scheme>", "redistribution scheme")
        .choices(["linear", "bottom", "none"])
        .default("linear"),
    )
    .option("--lambda <x>", "redistribution strength λ in [0, 1)", numberIn(0, 1), 0.5)
    .addOption(
      new Option("--preserve <what>", "the sum kept over passing candidates")
        .choices(["sequence", "token"])
        .default("sequence"),
    )
    .addOption(
      new Option(
        "--veto <policy>",
        "critical: a pass with a critical finding (test tampering, forged results, hard-coded outputs) scores as a failure; none: it keeps its pass",
      )
        .choices(["none", "critical"])
        .default(DEFAULTS.advantage.veto),
    )
    .option("--out <file>", "write advantage rows here (default: stdout); written whole or not at all")
    .option("-q, --quiet", "no per-group summary on stderr")
    .action(async (groupsFile: string, flags: AdvantagesFlags) => {
      if (flags.out !== undefined) checkOutputFile(flags.out, "--out");
      getEstimator(flags.estimator);
      const options: AdvantageOptions = {
        estimator: flags.estimator,
        scheme: flags.scheme,
        lambda: flags.lambda,
        preserve: flags.preserve,
        veto: flags.veto,
      };
      const rankings = flags.rankings ? await loadRankings(flags.rankings) : new Map<string, RankingEntry>();
      // Every line is read and computed before anything is printed or written: a bad line further
      // down must not leave a screen of tables that looks like a result.
      const computed: ComputedGroup[] = [];
      const seen = new Set<string>();
      for await (const { value: group, line } of readJsonl(groupsFile, GroupSchema)) {
        if (seen.has(group.id)) {
          throw new InputError({ file: groupsFile, line, field: "id" }, `duplicate group id "${group.id}"`);
        }
        seen.add(group.id);
        const entry = rankings.get(group.id);
        const where = { file: groupsFile, line };
        computed.push({
          group: { id: group.id, taskId: group.task.id, passed: group.candidates.map((c) => c.passed) },
          result: withGroupsLocation(where, () =>
            computeGroupAdvantages(group, entry?.ranking, options, entry?.where),
          ),
        });
      }
      const summary = new Summary(options, flags.quiet ?? false);
      await writeAtomically(flags.out, (out) => {
        for (const { result } of computed) for (const row of result.rows) out.write(toJsonlLine(row));
      });
      for (const { group, result } of computed) summary.add(group, result);
      for (const id of rankings.keys()) {
        if (!seen.has(id)) summary.warn(`rankings name group "${id}", which is not in ${groupsFile}`);
      }
      summary.finish(flags.out);
    });
}

/** What the summary needs of a group (not its patches, which may be large). */
interface GroupOutline {
  id: string;
  taskId: string;
  passed: boolean[];
}

interface ComputedGroup {
  group: GroupOutline;
  result: GroupAdvantages;
}

/** Errors that computeGroupAdvantages locates in "<groups>" are located at the group's line instead. */
function withGroupsLocation<T>(where: { file: string; line: number }, compute: () => T): T {
  try {
    return compute();
  } catch (e) {
    if (e instanceof InputError && e.location.file === "<groups>")
      throw new InputError({ ...where, field: e.location.field }, e.detail);
    throw e;
  }
}

interface RankingEntry {
  ranking: Ranking;
  where: { file: string; line: number };
}

async function loadRankings(file: string): Promise<Map<string, RankingEntry>> {
  const byGroup = new Map<string, RankingEntry>();
  for (const { value, line } of await readJsonlAll(file, RankingInput)) {
    if (byGroup.has(value.groupId)) {
      throw new InputError({ file, line, field: "groupId" }, `second ranking for group "${value.groupId}"`);
    }
    byGroup.set(value.groupId, { ranking: value, where: { file, line } });
  }
  return byGroup;
}

/** Per-group GRPO-vs-GAGAR report on stderr, then totals. */
class Summary {
  private groups = 0;
  private candidates = 0;
  private redistributed = 0;
  private vetoed = 0;
  private readonly skipped = new Map<string, number>();

  constructor(
    private readonly options: AdvantageOptions,
    private readonly quiet: boolean,
  ) {}

  add(group: GroupOutline, result: GroupAdvantages): void {
    this.groups++;
    this.candidates += result.rows.length;
    this.vetoed += result.vetoed.length;
    if (result.skipped === null) this.redistributed++;
    else this.skipped.set(result.skipped, (this.skipped.get(result.skipped) ?? 0) + 1);
    for (const w of result.warnings) this.warn(w);
    if (this.quiet) return;
    const passing = group.passed.filter(Boolean).length;
    const status = result.skipped === null ? "redistributed" : `unchanged (${result.skipped})`;
    const head = `group ${group.id} · task ${group.taskId} · ${passing}/${group.passed.length} passed · ${status}`;
    if (this.groups > DETAILED_GROUPS) {
      if (this.groups === DETAILED_GROUPS + 1) process.stderr.write("(further groups: one line each)\n");
      process.stderr.write(`${head}\n`);
      return;
    }
    const rows = result.rows.map((r, i) => [
      r.candidateId,
      group.passed[i] ? (result.vetoed.includes(r.candidateId) ? "vetoed" : "pass") : "fail",
      r.tier === null ? "-" : String(r.tier),
      signed(r.baseAdvantage),
      signed(r.advantage),
      r.weight.toFixed(3),
    ]);
    const table = renderTable(["candidate", "test", "tier", "GRPO", "GAGAR", "weight"], rows, "  ");
    process.stderr.write(`${head}\n${table}\n`);
  }

  warn(message: string): void {
    process.stderr.write(`warning: ${message}\n`);
  }

  finish(out: string | undefined): void {
    const { estimator, scheme, lambda, preserve } = this.options;
    const skipped = [...this.skipped].map(([k, v]) => `${v} ${k}`).join(", ");
    process.stderr.write(
      `${this.groups} groups, ${this.candidates} candidates · ${estimator} + GAGAR ${scheme} λ=${lambda} preserve=${preserve}` +
        ` · ${this.redistributed} redistributed${skipped ? `, unchanged: ${skipped}` : ""}` +
        `${this.vetoed ? ` · ${this.vetoed} vetoed` : ""}${out ? ` · rows written to ${out}` : ""}\n`,
    );
  }
}
