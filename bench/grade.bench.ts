/**
 * Static grader throughput: groups per second for groups of 8 passing candidates, on one core (the
 * grader is synchronous once tree-sitter is loaded, so one Node process uses one core). Goal ≥ 200/s.
 *
 * Groups: the three fixture groups of test/fixtures/grade (Python, JavaScript, Java), each padded to
 * 8 candidates, plus a mixed group whose candidates touch all three codebases at once (3 files,
 * ~25–40 changed lines each, the size of real SWE-bench patches). A second figure grades the
 * synthetic evaluation set (test/fixtures/grade/synthetic; 8 tasks, their first 8 candidates:
 * hard-coding tables, tests, docs, refactors) from the patches alone.
 *
 *   npx tsx bench/grade.bench.ts
 */

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type Group, Group as GroupSchema } from "../src/contracts/group.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { javaPaddingGroup, jsSizeGroup, pythonSlugGroup } from "../test/fixtures/grade/groups.ts";
import { SYNTHETIC_GROUPS } from "../test/fixtures/grade/synthetic/build.ts";
import { median, report, timeMedian } from "./stats.ts";

const GROUP_SIZE = 8;
const REPS = 15;
const ROUNDS_PER_REP = 10;

/** The group's passing candidates, cycled to exactly `GROUP_SIZE` (repeats get fresh ids). */
function padded(group: Group): Group {
  const passing = group.candidates.filter((c) => c.passed);
  const candidates = Array.from({ length: GROUP_SIZE }, (_, i) => ({
    ...passing[i % passing.length]!,
    id: `c${i}`,
  }));
  return GroupSchema.parse({ ...group, id: `${group.id}-8`, candidates });
}

/** Candidate i patches all three codebases with the i-th candidate of each fixture group. */
function mixed(groups: Group[]): Group {
  const candidates = Array.from({ length: GROUP_SIZE }, (_, i) => ({
    id: `m${i}`,
    passed: true,
    patch: groups.map((g) => g.candidates[i]!.patch).join(""),
  }));
  return GroupSchema.parse({
    schemaVersion: 1,
    id: "mixed-8",
    task: { id: "mixed", statement: groups.map((g) => g.task.statement).join("\n") },
    candidates,
  });
}

/** The synthetic set's groups, cut to their first `GROUP_SIZE` candidates, without reference or workspace. */
function syntheticGroups(): Group[] {
  return readFileSync(SYNTHETIC_GROUPS, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const g = JSON.parse(l);
      return GroupSchema.parse({
        ...g,
        reference: undefined,
        task: { ...g.task, workspace: undefined },
        candidates: g.candidates.slice(0, GROUP_SIZE),
      });
    });
}

export async function run(): Promise<void> {
  const base = [pythonSlugGroup, jsSizeGroup, javaPaddingGroup].map(padded);
  await measure("static grader, 4 groups × 8 candidates", [...base, mixed(base)]);
  await measure("static grader, synthetic set, 8 × 8", syntheticGroups());
}

async function measure(name: string, groups: Group[]): Promise<void> {
  const grader = createStaticGrader();
  const lines = groups.flatMap((g) => g.candidates.map((c) => c.patch.split("\n").length));
  // CPU time of this (single-threaded) process is what "on one core" means; wall time also counts
  // waiting for a core on a busy shared machine, so both are shown.
  const cpuTimes: number[] = [];
  const wallMs = await timeMedian(REPS, async () => {
    const cpu = process.cpuUsage();
    for (let r = 0; r < ROUNDS_PER_REP; r++) for (const group of groups) await grader.grade(group);
    const used = process.cpuUsage(cpu);
    cpuTimes.push((used.user + used.system) / 1000);
  });
  const graded = groups.length * ROUNDS_PER_REP;
  const perCpuSecond = (graded * 1000) / median(cpuTimes.slice(1));
  report(
    name,
    `${perCpuSecond.toFixed(0)} groups/s per CPU-second on one core (goal ≥ 200/s); ` +
      `${((graded * 1000) / wallMs).toFixed(0)} groups/s wall; patches ${Math.min(...lines)}–${Math.max(...lines)} lines`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
