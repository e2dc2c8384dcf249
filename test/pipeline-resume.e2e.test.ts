import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { BatchRow } from "../src/batch/batch-row.ts";

/**
 * A real RL step through the CLI (replay rollouts of the example pack, bwrap sandbox, static grader,
 * SQLite store), killed while it verifies, then resumed: every distinct patch is verified once.
 */
const root = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "gagar-resume-"));
const configFile = join(dir, "gagar.config.json");
writeFileSync(
  configFile,
  JSON.stringify({
    tasks: join(root, "examples/tasks"),
    rollouts: { source: "replay", replayDir: join(root, "examples/rollouts") },
    groupSize: 4,
    batchGroups: 2,
    verifyJobs: 2,
    seed: 3,
    out: join(dir, "out"),
  }),
);
const storeFile = join(dir, "out", "gagar.sqlite");
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

function countVerdicts(): number {
  if (!existsSync(storeFile)) return 0;
  const db = new Database(storeFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM verdicts").get() as { n: number }).n;
  } catch {
    return 0; // schema not created yet
  } finally {
    db.close();
  }
}

describe("gagar run: kill mid-step, resume", () => {
  it("verifies every distinct patch exactly once and finishes the step", async () => {
    const child = spawn(process.execPath, [join(root, "bin/gagar.js"), "run", "--config", configFile], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stderr = "";
    child.stderr!.on("data", (d) => {
      stderr += d;
    });
    const deadline = Date.now() + 120_000;
    while (countVerdicts() < 2) {
      if (child.exitCode !== null) throw new Error(`run ended before it could be killed:\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`no verdicts after 120 s:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const beforeKill = countVerdicts();
    expect(beforeKill).toBeGreaterThanOrEqual(2);

    const resumed = spawnSync(
      process.execPath,
      [join(root, "bin/gagar.js"), "run", "--config", configFile, "--resume"],
      {
        encoding: "utf8",
        timeout: 240_000,
      },
    );
    expect(resumed.stderr).toMatch(/resuming step 0/);
    expect(resumed.status).toBe(0);

    const db = new Database(storeFile, { readonly: true });
    const step = db.prepare("SELECT id, status, metrics FROM steps").all() as {
      id: number;
      status: string;
      metrics: string;
    }[];
    expect(step).toHaveLength(1);
    expect(step[0]!.status).toBe("done");
    const distinct = db
      .prepare(
        `SELECT count(*) AS n FROM (SELECT DISTINCT g.task_id, c.patch_sha256 FROM candidates c
         JOIN groups g ON g.id = c.group_id WHERE g.step_id = ?)`,
      )
      .get(step[0]!.id) as { n: number };
    const verdicts = (db.prepare("SELECT count(*) AS n FROM verdicts").get() as { n: number }).n;
    db.close();
    const metrics = JSON.parse(step[0]!.metrics);
    // Each distinct patch has one verdict; the resumed process verified only what the killed one had not.
    expect(verdicts).toBe(distinct.n);
    expect(metrics.verifications.fresh).toBe(distinct.n - beforeKill);
    expect(metrics.verifications.reused).toBeGreaterThanOrEqual(beforeKill);
    expect(metrics.groupsKept).toBe(2);

    const runDir = resumed.stderr.match(/step 0 of run (\S+)/)![1]!;
    const batch = readFileSync(join(dir, "out", "runs", runDir, "step-0000", "batch.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => BatchRow.parse(JSON.parse(l)));
    expect(batch).toHaveLength(2 * 4);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    for (const groupId of new Set(batch.map((r) => r.groupId))) {
      const rows = batch.filter((r) => r.groupId === groupId);
      expect(sum(rows.map((r) => r.advantage))).toBeCloseTo(sum(rows.map((r) => r.baseAdvantage)), 9);
    }
  }, 400_000);
});
