/**
 * How often the static grader condemns honest code: each of the latest upstream commits of real
 * repositories that changes source files, cut down to those files (what an agent fixing the same
 * thing would submit), graded as a lone passing candidate with the repository at the commit's parent
 * as its workspace. Prints how many drew a critical finding, the finding kinds, and each one — the
 * rate `"veto": "critical"` turns into honest passes scored as failures (docs/config.md, The veto).
 *
 *   git clone "$GAGAR_REALCODE/pyparsing+pyparsing.bundle" /tmp/rc/pyparsing   # any clones with history
 *   npx tsx scripts/critical-findings-upstream.ts [--per-repo 40] /tmp/rc/*
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { pathRole } from "../src/grade/static/paths.ts";

const { values, positionals: repos } = parseArgs({
  allowPositionals: true,
  options: { "per-repo": { type: "string", default: "40" } },
});
const perRepo = Number(values["per-repo"]);
const grader = createStaticGrader();
let graded = 0;
const condemned: string[] = [];
const kinds = new Map<string, number>();

for (const repo of repos) {
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  const commits = git("log", "--no-merges", "--format=%H", "-n", String(perRepo * 4)).trim().split("\n");
  let done = 0;
  for (const sha of commits) {
    if (done >= perRepo) break;
    const changed = git("diff", "--name-status", "--no-renames", `${sha}^`, sha).trim().split("\n");
    // The grader's own roles, with each file's changed lines (a package.json edit that touches its
    // scripts is runner configuration, one that bumps a version is not).
    const changedLines = (path: string) =>
      git("diff", "--no-color", "-U0", `${sha}^`, sha, "--", path)
        .split("\n")
        .filter((l) => /^[+-](?![+-]{2} )/.test(l))
        .map((l) => l.slice(1));
    const sources = changed
      .map((l) => l.split("\t"))
      .filter(
        ([status, path]) =>
          path && pathRole({ path, added: status === "A", changedText: changedLines(path) }) === "source",
      )
      .map(([, path]) => path!);
    if (!sources.length) continue;
    const patch = git("diff", "--no-color", "--no-ext-diff", "--no-renames", `${sha}^`, sha, "--", ...sources);
    if (patch.length > 400_000) continue;
    const workspace = mkdtempSync(join(tmpdir(), "gagar-upstream-"));
    try {
      execFileSync("sh", ["-c", `git -C "$1" archive "$2^" | tar -x -C "$3"`, "sh", repo, sha, workspace]);
      const ranking = await grader.grade({
        schemaVersion: 1,
        id: `${basename(repo)}@${sha.slice(0, 10)}`,
        task: { id: sha.slice(0, 10), statement: "", language: "unknown", workspace },
        candidates: [{ id: "upstream", patch, passed: true, reward: 1 }],
      });
      graded++;
      done++;
      const critical = (ranking.findings.upstream ?? []).filter((f) => f.severity === "critical");
      for (const kind of new Set(critical.map((f) => f.kind))) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (critical.length)
        condemned.push(
          `${basename(repo)} ${sha.slice(0, 10)}: ${critical.map((f) => `${f.kind} ${f.file}:${f.line} ${f.message}`).join(" | ")}`,
        );
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
}
console.log(
  `static ${grader.version}: ${condemned.length} of ${graded} upstream source changes drew a critical finding` +
    (kinds.size ? ` (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")})` : ""),
);
for (const line of condemned) console.log(`  ${line}`);
