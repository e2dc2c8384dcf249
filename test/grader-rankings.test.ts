import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type Group, Group as GroupSchema } from "../src/contracts/group.ts";
import type { Ranking } from "../src/contracts/index.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { fixtureGroups } from "./fixtures/grade/groups.ts";
import { SYNTHETIC_GROUPS } from "./fixtures/grade/synthetic/build.ts";

/**
 * The static grader's rankings of the fixture groups and of the synthetic set (with and without its
 * workspaces), pinned: tiers, scores, excess lines and where each finding is. Work that must not
 * change a ranking (speed, refactoring) keeps this test green as it is; a change of rules updates
 * the file on purpose, and the diff of `static-rankings.jsonl` shows what it changed:
 *
 *   GAGAR_UPDATE_RANKINGS=1 npx vitest run test/grader-rankings.test.ts
 */
const PINNED = join(import.meta.dirname, "fixtures/grade/static-rankings.jsonl");

function syntheticGroups(withWorkspace: boolean): Group[] {
  return readFileSync(SYNTHETIC_GROUPS, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const group = GroupSchema.parse(JSON.parse(l));
      group.task.workspace = withWorkspace
        ? resolve(dirname(SYNTHETIC_GROUPS), group.task.workspace!)
        : undefined;
      return { ...group, id: `${group.id}${withWorkspace ? "" : " (patches only)"}` };
    });
}

/** What decides a ranking, without the finding texts (wording may change freely). */
function pinned(ranking: Ranking) {
  return {
    ranking: ranking.ranking,
    scores: ranking.scores,
    excessLines: ranking.excessLines,
    findings: Object.fromEntries(
      Object.entries(ranking.findings).map(([id, list]) => [
        id,
        list.map((f) => `${f.kind} ${f.file ?? ""}:${f.line ?? ""}`),
      ]),
    ),
  };
}

describe("static grader rankings", () => {
  it("are the pinned ones on the fixture groups and the synthetic set", async () => {
    const grader = createStaticGrader();
    const groups = [...fixtureGroups, ...syntheticGroups(true), ...syntheticGroups(false)];
    // One group per line, so a rule change shows as a diff of the groups it changed.
    const actual: string[] = [];
    for (const group of groups)
      actual.push(JSON.stringify({ id: group.id, ...pinned(await grader.grade(group)) }));
    if (process.env.GAGAR_UPDATE_RANKINGS) writeFileSync(PINNED, `${actual.join("\n")}\n`);
    expect(actual).toEqual(readFileSync(PINNED, "utf8").trimEnd().split("\n"));
  });
});
