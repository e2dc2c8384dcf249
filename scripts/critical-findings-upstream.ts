/**
 * How often the static grader condemns honest code: upstream commits of real repositories that
 * change source files, each graded as a lone passing candidate with the repository at the commit's
 * parent as its workspace (src/grade/eval/upstream-commits.ts). Prints how many drew a critical
 * finding, the finding kinds, and each one — the rate `"veto": "critical"` turns into honest passes
 * scored as failures (docs/config.md, The veto).
 *
 *   git clone "$GAGAR_REALCODE/pyparsing+pyparsing.bundle" /tmp/rc/pyparsing   # any clones with history
 *   npx tsx scripts/critical-findings-upstream.ts [options] /tmp/rc/*
 *
 *   --per-repo N        commits per repository (default 40)
 *   --skip N            leave out each repository's latest N source-changing commits first (default 0),
 *                       to measure on commits a rule was not tuned on
 *   --scope S           source (default): the commit's source files, what an agent's fix would be;
 *                       whole: every file it changes, its tests and configs too
 *   --statement S       none (default) or message: the commit message as the task statement
 *   --json FILE         every graded commit with all its findings, one JSON object a line
 */
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import type { Finding } from "../src/contracts/finding.ts";
import {
  sourceChangingCommits,
  type UpstreamScope,
  type UpstreamStatement,
  upstreamGroup,
} from "../src/grade/eval/upstream-commits.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";

const { values, positionals: repos } = parseArgs({
  allowPositionals: true,
  options: {
    "per-repo": { type: "string", default: "40" },
    skip: { type: "string", default: "0" },
    scope: { type: "string", default: "source" },
    statement: { type: "string", default: "none" },
    json: { type: "string" },
  },
});
const count = (name: "per-repo" | "skip") => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} must be a whole number, not ${values[name]}`);
  return n;
};
const perRepo = count("per-repo");
const skip = count("skip");
const scope = values.scope as UpstreamScope;
if (scope !== "source" && scope !== "whole") usage(`--scope must be source or whole, not ${scope}`);
const statement = values.statement as UpstreamStatement;
if (statement !== "none" && statement !== "message")
  usage(`--statement must be none or message, not ${statement}`);
if (repos.length === 0) usage("name at least one clone of a repository with its history");

function usage(message: string): never {
  process.stderr.write(`critical-findings-upstream: ${message}\n`);
  process.exit(2);
}

const grader = createStaticGrader();
let graded = 0;
const condemned: string[] = [];
const kinds = new Map<string, number>();
const records: string[] = [];

for (const repo of repos) {
  for (const sha of sourceChangingCommits(repo, { count: perRepo, skip, scope })) {
    const made = upstreamGroup(repo, sha, { scope, statement });
    if (!made) continue;
    try {
      const ranking = await grader.grade(made.group);
      graded++;
      const findings: Finding[] = ranking.findings.upstream ?? [];
      records.push(JSON.stringify({ repo: basename(repo), sha, findings }));
      const critical = findings.filter((f) => f.severity === "critical");
      for (const kind of new Set(critical.map((f) => f.kind))) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (critical.length)
        condemned.push(
          `${basename(repo)} ${sha.slice(0, 10)}: ${critical.map((f) => `${f.kind} ${f.file}:${f.line} ${f.message}`).join(" | ")}`,
        );
    } finally {
      made.dispose();
    }
  }
}
if (values.json) writeFileSync(values.json, records.length ? `${records.join("\n")}\n` : "");
const what = scope === "source" ? "upstream source changes" : "whole upstream commits";
console.log(
  `static ${grader.version}: ${condemned.length} of ${graded} ${what} drew a critical finding` +
    ` (${perRepo} per repository after skipping ${skip}, statement: ${statement})` +
    (kinds.size ? `: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}` : ""),
);
for (const line of condemned) console.log(`  ${line}`);
