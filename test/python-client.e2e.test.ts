import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdvantageRow } from "../src/contracts/advantage-row.ts";
import { Verdict } from "../src/contracts/verdict.ts";
import { type GagarProcess, startServe } from "./support/gagar-process.ts";

/**
 * The Python client (clients/python, standard library only) against a real `gagar serve` on the
 * example pack, run with the machine's python3: its own unittest suite, and the verl example that
 * docs/verl.md shows word for word, with the output the doc prints checked against the CLI's own
 * verify → grade → advantages on the same rollouts.
 */
const ROOT = resolve(import.meta.dirname, "..");
const CLIENT = join(ROOT, "clients/python");
const TOKEN = "python-e2e-7a1f";

let serve: GagarProcess;
let url: string;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gagar-python-e2e-"));
  ({ serve, url } = await startServe(["--port", "0", "--out", dir, "--jobs", "2"], { GAGAR_TOKEN: TOKEN }));
}, 120_000);
afterAll(async () => {
  await serve?.stop("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

function python(args: string[]) {
  const run = spawnSync("python3", args, {
    cwd: CLIENT,
    env: { ...process.env, GAGAR_URL: url, GAGAR_TOKEN: TOKEN, PYTHONPATH: CLIENT },
    encoding: "utf8",
    timeout: 240_000,
  });
  if (run.error) throw new Error(`python3 could not run: ${run.error.message}`);
  return run;
}

function gagar(args: string[]): void {
  const run = spawnSync(process.execPath, [join(ROOT, "bin/gagar.js"), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 240_000,
  });
  if (run.status !== 0) throw new Error(`gagar ${args[0]} failed:\n${run.stderr}`);
}

function jsonl(file: string): unknown[] {
  return readFileSync(join(dir, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/**
 * The example's batch as `gagar verify` rollouts: the same rows (the first six recorded rollouts of
 * its two tasks), named as its `groups_from_batch` names them (group = uid, candidate = row index),
 * with the same token counts.
 */
function exampleRollouts(file: string) {
  const rows = ["tinyini-delimiter", "semver-prerelease-order"].flatMap((task) =>
    readFileSync(join(ROOT, "examples/rollouts", `${task}.jsonl`), "utf8")
      .split("\n")
      .slice(0, 6)
      .map((line) => ({ task, rollout: JSON.parse(line) })),
  );
  const rollouts = rows.map(({ task, rollout }, i) => ({
    id: String(i),
    taskId: rollout.taskId as string,
    groupId: `prompt-${task}`,
    patch: rollout.patch as string,
    trajectory: { tokens: rollout.trajectory.tokens as number },
  }));
  writeFileSync(join(dir, file), rollouts.map((r) => JSON.stringify(r)).join("\n"));
  return rollouts;
}

/** What the example prints, parsed: group lines, row lines, the pass rate. */
function parseExampleOutput(stdout: string) {
  const groups = [...stdout.matchAll(/^(\S+): (\d+)\/(\d+) passed, kept=(True|False)$/gm)].map((m) => ({
    id: m[1],
    passed: Number(m[2]),
    candidates: Number(m[3]),
    kept: m[4] === "True",
  }));
  const rows = [
    ...stdout.matchAll(/^row +(\d+) {2}(\S+) +tokens +(\d+) {2}advantage ([+-]\d+\.\d{3})$/gm),
  ].map((m) => ({ row: Number(m[1]), reason: m[2], tokens: Number(m[3]), advantage: Number(m[4]) }));
  const passRate = Number(/^pass rate (\d\.\d{2})$/m.exec(stdout)?.[1]);
  return { groups, rows, passRate };
}

describe("the Python client against gagar serve", () => {
  it("passes its unittest suite, every service test included", () => {
    const run = python(["-m", "unittest", "discover", "-s", "tests", "-v"]);
    expect(run.stderr).toMatch(/^OK$/m);
    expect(run.stderr).not.toMatch(/skipped/);
    expect(run.status).toBe(0);
  }, 240_000);

  it("runs the verl example that docs/verl.md shows", () => {
    const example = readFileSync(join(CLIENT, "examples/verl_step.py"), "utf8");
    expect(readFileSync(join(ROOT, "docs/verl.md"), "utf8")).toContain(example.trim());
    const run = python(["examples/verl_step.py", join(ROOT, "examples/rollouts")]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    // The doc prints exactly what the example prints today.
    expect(readFileSync(join(ROOT, "docs/verl.md"), "utf8")).toContain(`\`\`\`\n${run.stdout}\`\`\`\n`);

    // The same rollouts through the CLI, with no service in between.
    const input = exampleRollouts("example-rollouts.jsonl");
    gagar([
      "verify",
      "--tasks",
      join(ROOT, "examples/tasks"),
      "--rollouts",
      "example-rollouts.jsonl",
      "--out",
      "verdicts.jsonl",
      "--groups-out",
      "groups.jsonl",
      "-q",
    ]);
    gagar(["grade", "groups.jsonl", "--out", "rankings.jsonl"]);
    gagar([
      "advantages",
      "groups.jsonl",
      "--rankings",
      "rankings.jsonl",
      "--preserve",
      "token",
      "--out",
      "rows.jsonl",
      "-q",
    ]);
    const verdicts = new Map(
      jsonl("verdicts.jsonl")
        .map((v) => Verdict.parse(v))
        .map((v) => [v.rolloutId, v] as const),
    );
    const rows = jsonl("rows.jsonl").map((r) => AdvantageRow.parse(r));

    const printed = parseExampleOutput(run.stdout);
    expect(printed.rows).toEqual(
      input.map((r, i) => ({
        row: i,
        reason: verdicts.get(r.id)!.reason,
        tokens: r.trajectory.tokens,
        // The example prints three decimals: equal to the CLI's value to that precision.
        advantage: expect.closeTo(
          rows.find((a) => a.groupId === r.groupId && a.candidateId === r.id)!.advantage,
          3,
        ),
      })),
    );
    const groupIds = [...new Set(input.map((r) => r.groupId))];
    expect(printed.groups).toEqual(
      groupIds.map((id) => {
        const own = input.filter((r) => r.groupId === id).map((r) => verdicts.get(r.id)!);
        const passed = own.filter((v) => v.passed).length;
        return { id, passed, candidates: own.length, kept: passed > 0 && passed < own.length };
      }),
    );
    const passRate = input.filter((r) => verdicts.get(r.id)!.passed).length / input.length;
    expect(printed.passRate).toBeCloseTo(passRate, 2);
  }, 240_000);
});
