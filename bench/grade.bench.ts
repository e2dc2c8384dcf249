/**
 * Static grader throughput: groups per second for groups of 8 passing candidates, on one core (the
 * grader is synchronous once tree-sitter is loaded, so one Node process uses one core). Goal ≥ 200/s.
 *
 * Groups: the three fixture groups of test/fixtures/grade (Python, JavaScript, Java), each padded to
 * 8 candidates, plus a mixed group whose candidates touch all three codebases at once (3 files,
 * ~25–40 changed lines each, the size of the real SWE-bench patches the grader was calibrated on).
 *
 *   npx tsx bench/grade.bench.ts
 */
import { pathToFileURL } from "node:url";
import { type Group, Group as GroupSchema } from "../src/contracts/group.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { javaPaddingGroup, jsSizeGroup, pythonSlugGroup } from "../test/fixtures/grade/groups.ts";
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

export async function run(): Promise<void> {
  const base = [pythonSlugGroup, jsSizeGroup, javaPaddingGroup].map(padded);
  const groups = [...base, mixed(base)];
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
    `static grader, ${groups.length} groups × ${GROUP_SIZE} candidates`,
    `${perCpuSecond.toFixed(0)} groups/s per CPU-second on one core (goal ≥ 200/s); ` +
      `${((graded * 1000) / wallMs).toFixed(0)} groups/s wall; patches ${Math.min(...lines)}–${Math.max(...lines)} lines`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
