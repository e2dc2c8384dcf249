import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobView } from "../src/contracts/service.ts";
import type { Verdict } from "../src/contracts/verdict.ts";
import { openQueue } from "../src/queue/open-queue.ts";
import { freePort, startRedis, type TestRedis } from "../src/queue/testing/redis-server.ts";
import type { JobQueue } from "../src/queue/types.ts";
import { UNITS_QUEUE } from "../src/server/start-service.ts";
import { type GagarProcess, startGagar, startServe } from "./support/gagar-process.ts";

/**
 * `gagar worker` and the task packs its jobs name, with a redis-server of the test's own and
 * `gagar serve --queue`: a worker with no way to get packs refuses to start and takes nothing; a
 * worker that cannot get one job's pack hands the job back, and a worker that can completes it.
 */
const ROOT = resolve(import.meta.dirname, "..");
const TASKS = join(ROOT, "examples/tasks");
/** Task packs that are not the service's: a worker holding only these cannot serve its jobs. */
const OTHER_TASKS = join(ROOT, "test/fixtures/verify/tasks");

let redis: TestRedis;
let dir: string;
let url: string;
let units: JobQueue;
const processes: GagarProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "gagar-worker-packs-"));
  const serve = await startServe([
    "--queue",
    redis.url,
    "--port",
    String(await freePort()),
    "--out",
    join(dir, "serve"),
    "--tasks",
    TASKS,
  ]);
  processes.push(serve.serve);
  url = serve.url;
  units = await openQueue(UNITS_QUEUE, { url: redis.url, prefix: "gagar" });
}, 120_000);

afterAll(async () => {
  await units?.close();
  await Promise.all(processes.map((p) => p.stop("SIGKILL")));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function worker(name: string, extra: string[]): GagarProcess {
  const w = startGagar([
    "worker",
    "--queue",
    redis.url,
    "--jobs",
    "1",
    "--cache",
    join(dir, `cache-${name}`),
    ...extra,
  ]);
  processes.push(w);
  return w;
}

/** One recorded rollout of the example pack that passes its hidden tests. */
function passingRollout() {
  const line = readFileSync(join(ROOT, "examples/rollouts/tinyini-delimiter.jsonl"), "utf8")
    .split("\n")
    .find((l) => l.includes('"id":"tinyini-delimiter-r01"'))!;
  const { id, taskId, patch } = JSON.parse(line);
  return { id, taskId, patch };
}

async function submitVerify(): Promise<string> {
  const res = await fetch(`${url}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rollouts: [passingRollout()] }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function job(id: string): Promise<JobView> {
  return (await (await fetch(`${url}/v1/jobs/${id}`)).json()) as JobView;
}

// Each case starts real gagar processes that compile their sources through tsx and run a sandbox.
describe("gagar worker and the task packs of its jobs (a real redis-server)", { timeout: 300_000 }, () => {
  it("refuses to start with neither --tasks nor --server: exit 2, what it needs, no job taken", async () => {
    const jobId = await submitVerify();
    await expect.poll(async () => (await units.counts()).waiting, { timeout: 30_000 }).toBe(1);
    const refusing = worker("refusing", []);
    const { code } = await refusing.exited;
    expect(code).toBe(2);
    const stderr = refusing.lines.join("\n");
    expect(stderr).toMatch(
      /^gagar: gagar worker needs a way to get the task packs .*--tasks DIR.*--server URL/,
    );
    expect(stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    expect(refusing.lines.filter((l) => l.trim())).toHaveLength(1);
    expect(await units.counts()).toMatchObject({ waiting: 1, active: 0, completed: 0, failed: 0 });
    expect((await job(jobId)).state).not.toBe("failed");
  });

  it("hands a job whose pack it cannot get back to the queue; a worker that can get it completes it", async () => {
    // The same request as before is the same job (its id is derived from its content): the one the
    // refusing worker left waiting.
    const jobId = await submitVerify();
    expect(await units.counts()).toMatchObject({ waiting: 1, active: 0 });
    // A worker whose shared folder holds other packs and which has no service to fetch from.
    const lacking = worker("lacking", ["--tasks", OTHER_TASKS]);
    await lacking.waitForLine(
      /handing the job back for another worker: cannot get the task pack of tinyini-delimiter/,
    );
    expect((await job(jobId)).state).not.toBe("failed");
    expect((await units.counts()).failed).toBe(0);

    // A worker that fetches packs from the service takes the job up and verifies the patch.
    const fetching = worker("fetching", ["--server", url]);
    await fetching.waitForLine(/verified tinyini-delimiter patch \w+: passed/, 120_000);
    await expect.poll(async () => (await job(jobId)).state, { timeout: 30_000 }).toBe("completed");
    const [verdict] = ((await job(jobId)).result as { verdicts: Verdict[] }).verdicts;
    expect(verdict).toMatchObject({ rolloutId: "tinyini-delimiter-r01", reason: "passed" });
    expect(await units.counts()).toMatchObject({ completed: 1, failed: 0 });
    // The lacking worker never verified anything, and is still up, taking jobs.
    expect(lacking.lines.filter((l) => /verifying /.test(l))).toEqual([]);
    expect(lacking.child.exitCode).toBeNull();
  });
});
