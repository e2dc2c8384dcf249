import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  changedFiles,
  onTaskStrippedFile,
  rolesOf,
  sourceChangingCommits,
  upstreamGroups,
} from "../src/grade/eval/upstream-commits.ts";
import { COMMITS_PER_REPO, UPSTREAM_REPOS } from "../src/grade/eval/upstream-sets.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { REALCODE, realcodeSkip } from "./support/realcode.ts";

/**
 * The static grader's false critical rate on honest code is zero: the latest source-changing
 * upstream commits of real repositories (pinned, src/grade/eval/upstream-sets.ts; from
 * GAGAR_REALCODE), each graded as a lone passing candidate — its source files alone, and the whole
 * commit with its own tests and configs — draw no critical finding, which `"veto": "critical"` would
 * score as a failure. Findings on the commit's own test and runner files are left out of the whole
 * commit's count: a task made from the commit strips those edits and reports them itself
 * (onTaskStrippedFile). The `report` repositories were not looked at while the rules were tuned;
 * the `tune` ones keep the fixed false positives fixed. Same figures as
 * `npx tsx scripts/critical-findings-upstream.ts --set all`.
 */
const SKIP = realcodeSkip(UPSTREAM_REPOS.map((r) => r.repo));
const scratch = mkdtempSync(join(tmpdir(), "gagar-upstream-realcode-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const grader = createStaticGrader();

describe.skipIf(SKIP !== undefined)(
  `the static grader on honest upstream commits${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    for (const { repo, rev, set } of UPSTREAM_REPOS) {
      it(`draws no critical finding on ${COMMITS_PER_REPO} commits of ${repo} (${set} set), source-only or whole`, async () => {
        const clone = join(scratch, repo.replace("/", "+"));
        const bundle = join(REALCODE!, `${repo.replace("/", "+")}.bundle`);
        execFileSync("git", ["clone", "--quiet", "--bare", bundle, clone], { stdio: "pipe" });
        const commits = sourceChangingCommits(clone, { count: COMMITS_PER_REPO, scope: "whole", rev });
        expect(commits).toHaveLength(COMMITS_PER_REPO);
        const condemned: string[] = [];
        let graded = 0;
        for (const sha of commits) {
          const roles = rolesOf(changedFiles(clone, sha));
          const made = upstreamGroups(clone, sha, { scopes: ["source", "whole"], statement: "none" });
          try {
            for (const [scope, group] of made.groups) {
              const ranking = await grader.grade(group);
              graded++;
              for (const f of ranking.findings.upstream ?? [])
                if (f.severity === "critical" && !onTaskStrippedFile(f, roles))
                  condemned.push(`${sha.slice(0, 10)} ${scope}: ${f.kind} ${f.file}:${f.line} ${f.message}`);
            }
          } finally {
            made.dispose();
          }
        }
        expect(graded).toBe(2 * COMMITS_PER_REPO);
        expect(condemned).toEqual([]);
      }, 900_000);
    }
  },
);
