/**
 * How often the static grader condemns honest code: upstream commits of real repositories that
 * change source files, each graded as a lone passing candidate with the repository at the commit's
 * parent as its workspace (src/grade/eval/upstream-commits.ts). Prints, per scope, how many drew a
 * critical finding, the finding kinds, and each one — the rate `"veto": "critical"` turns into
 * honest passes scored as failures (docs/config.md, The veto).
 *
 *   npx tsx scripts/critical-findings-upstream.ts --set report      # from $GAGAR_REALCODE's bundles
 *   npx tsx scripts/critical-findings-upstream.ts [options] CLONE…  # any clones with history, at HEAD
 *
 *   --set S             tune, report or all: the pinned repositories of src/grade/eval/upstream-sets.ts
 *                       (the rules were tuned on `tune` only; quote `report`)
 *   --per-repo N        commits per repository (default 40)
 *   --skip N            leave out each repository's latest N source-changing commits first (default 0)
 *   --scope S           source: the commit's source files, what an agent's fix would be; whole: every
 *                       file it changes, its tests and configs too; both (default)
 *   --statement S       none (default) or message: the commit message as the task statement
 *   --json FILE         every graded commit with all its findings, one JSON object a line
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import type { Finding } from "../src/contracts/finding.ts";
import {
  changedFiles,
  onTaskStrippedFile,
  rolesOf,
  sourceChangingCommits,
  type UpstreamScope,
  type UpstreamStatement,
  upstreamGroups,
} from "../src/grade/eval/upstream-commits.ts";
import { UPSTREAM_REPOS } from "../src/grade/eval/upstream-sets.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    set: { type: "string" },
    "per-repo": { type: "string", default: "40" },
    skip: { type: "string", default: "0" },
    scope: { type: "string", default: "both" },
    statement: { type: "string", default: "none" },
    json: { type: "string" },
  },
});
function usage(message: string): never {
  process.stderr.write(`critical-findings-upstream: ${message}\n`);
  process.exit(2);
}
const count = (name: "per-repo" | "skip") => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} must be a whole number, not ${values[name]}`);
  return n;
};
const perRepo = count("per-repo");
const skip = count("skip");
if (!["source", "whole", "both"].includes(values.scope!))
  usage(`--scope must be source, whole or both, not ${values.scope}`);
const scopes: UpstreamScope[] = values.scope === "both" ? ["source", "whole"] : [values.scope as UpstreamScope];
const statement = values.statement as UpstreamStatement;
if (statement !== "none" && statement !== "message")
  usage(`--statement must be none or message, not ${statement}`);
const set = values.set;
if (set !== undefined && !["tune", "report", "all"].includes(set))
  usage(`--set must be tune, report or all, not ${set}`);
if (set !== undefined && positionals.length > 0) usage("give either --set or clones, not both");
if (set === undefined && positionals.length === 0)
  usage("name --set tune|report|all, or at least one clone of a repository with its history");
if (set !== undefined && !process.env.GAGAR_REALCODE)
  usage("--set reads the bundles in $GAGAR_REALCODE; set it to their folder");

/** Where each repository's history is read, at which revision. */
const scratch = mkdtempSync(join(tmpdir(), "gagar-upstream-clones-"));
const sources =
  set === undefined
    ? positionals.map((path) => ({ name: basename(path), path, rev: "HEAD" }))
    : UPSTREAM_REPOS.filter((r) => set === "all" || r.set === set).map((r) => {
        const name = r.repo.replace("/", "+");
        const path = join(scratch, name);
        const bundle = join(process.env.GAGAR_REALCODE!, `${name}.bundle`);
        execFileSync("git", ["clone", "--quiet", "--bare", bundle, path], { stdio: "pipe" });
        return { name, path, rev: r.rev };
      });

const grader = createStaticGrader();
const graded = new Map(scopes.map((s) => [s, 0]));
const condemned = new Map<UpstreamScope, string[]>(scopes.map((s) => [s, []]));
const kinds = new Map<UpstreamScope, Map<string, number>>(scopes.map((s) => [s, new Map()]));
const records: string[] = [];
/** Commits with a critical finding on their own test or runner files (what a task strips), per scope. */
const onStripped = new Map(scopes.map((s) => [s, 0]));

try {
  for (const { name, path, rev } of sources) {
    const scope = scopes.includes("whole") ? "whole" : "source";
    for (const sha of sourceChangingCommits(path, { count: perRepo, skip, scope, rev })) {
      const made = upstreamGroups(path, sha, { scopes, statement });
      const roles = rolesOf(changedFiles(path, sha));
      try {
        for (const [scope, group] of made.groups) {
          const ranking = await grader.grade(group);
          graded.set(scope, graded.get(scope)! + 1);
          const findings: Finding[] = ranking.findings.upstream ?? [];
          records.push(JSON.stringify({ repo: name, sha, scope, findings }));
          const all = findings.filter((f) => f.severity === "critical");
          const critical = all.filter((f) => !onTaskStrippedFile(f, roles));
          if (all.length > critical.length) onStripped.set(scope, onStripped.get(scope)! + 1);
          const byKind = kinds.get(scope)!;
          for (const kind of new Set(critical.map((f) => f.kind))) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
          if (critical.length)
            condemned
              .get(scope)!
              .push(
                `${name} ${sha.slice(0, 10)}: ${critical.map((f) => `${f.kind} ${f.file}:${f.line} ${f.message}`).join(" | ")}`,
              );
        }
      } finally {
        made.dispose();
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (values.json) writeFileSync(values.json, records.length ? `${records.join("\n")}\n` : "");
const repos = set === undefined ? `${sources.length} repositories` : `the ${set} set (${sources.length} repositories)`;
for (const scope of scopes) {
  const what = scope === "source" ? "upstream source changes" : "whole upstream commits";
  const byKind = kinds.get(scope)!;
  console.log(
    `static ${grader.version}: ${condemned.get(scope)!.length} of ${graded.get(scope)} ${what} drew a critical finding` +
      ` (${repos}, ${perRepo} per repository after skipping ${skip}, statement: ${statement})` +
      (byKind.size ? `: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")}` : ""),
  );
  if (onStripped.get(scope)! > 0)
    console.log(
      `  besides: ${onStripped.get(scope)} drew a critical finding on their own test or runner files, edits a task made from the commit strips (not counted above)`,
    );
  for (const line of condemned.get(scope)!) console.log(`  ${line}`);
}
