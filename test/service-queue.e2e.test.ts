import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobView } from "../src/contracts/service.ts";
import type { Verdict } from "../src/contracts/verdict.ts";
import { openQueue } from "../src/queue/open-queue.ts";
import { freePort, startRedis, type TestRedis } from "../src/queue/testing/redis-server.ts";
import { REQUESTS_QUEUE, UNITS_QUEUE } from "../src/server/start-service.ts";
import { openStore } from "../src/store/run-store.ts";
import { type GagarProcess, startGagar, startServe } from "./support/gagar-process.ts";

/**
 * The service spread over processes, for real: a redis-server of the test's own, `gagar serve
 * --queue`, and two `gagar worker` processes (one reading the task packs from the shared path, one
 * fetching them from the service by digest). 200 verify jobs over the distinct patches of the chosen
 * tasks; one worker is killed with SIGKILL in the middle of a verification and the service is killed
 * and restarted while jobs are queued. Every job must complete with the verdicts `gagar verify`
 * gives, and every (task, patch) must have been verified to completion exactly once.
 *
 * By default five rollouts of each of two tasks (a Python and a JavaScript one, passes and failures:
 * 10 patches) keep the run short; GAGAR_SERVICE_TEST_TASKS=all uses all 60 of the example pack.
 */
const ROOT = resolve(import.meta.dirname, "..");
const TASKS = join(ROOT, "examples/tasks");
const ALL = process.env.GAGAR_SERVICE_TEST_TASKS === "all";
const CHOSEN = ALL
  ? [
      "daterange-month-rollover",
      "globmatch-doublestar",
      "moneyfmt-minor-units",
      "semver-prerelease-order",
      "slugify-diacritics",
      "tinyini-delimiter",
    ]
  : ["tinyini-delimiter", "semver-prerelease-order"];
const JOBS = 200;
const TOKEN = "e2e-token-4d1c";
const LOCK = ["--lock-sec", "3"];

interface Rollout {
  id: string;
  taskId: string;
  patch: string;
}

let redis: TestRedis;
let dir: string;
const processes: GagarProcess[] = [];
beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "gagar-service-e2e-"));
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop("SIGKILL")));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

async function post(url: string, body: unknown, headers: Record<string, string> = auth) {
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A verdict without what differs between two runs of the same patch (timings, and the diagnostics:
 * the output tail names each run's random canaries, tracebacks show object addresses) or is the
 * caller's (ids).
 */
function essence(v: Verdict) {
  const {
    durationsMs: _,
    outputTail: ____,
    failureMessages: _____,
    rolloutId: __,
    groupId: ___,
    ...rest
  } = v;
  return rest;
}

describe("gagar serve --queue with two gagar worker processes", () => {
  it("completes 200 verify jobs through a worker's SIGKILL and a service restart, each patch verified once, verdicts as gagar verify's", async () => {
    const rollouts: Rollout[] = CHOSEN.flatMap((task) =>
      readFileSync(join(ROOT, "examples/rollouts", `${task}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .slice(...(ALL ? [0] : [3, 8]))
        .map((l) => {
          const { id, taskId, patch } = JSON.parse(l);
          return { id, taskId, patch };
        }),
    );
    // What `gagar verify` says, computed alongside the service.
    const rolloutsFile = join(dir, "rollouts.jsonl");
    writeFileSync(rolloutsFile, rollouts.map((r) => JSON.stringify(r)).join("\n"));
    const expectedFile = join(dir, "expected.jsonl");
    const reference = new Promise<Verdict[]>((done, fail) => {
      const child = startGagar([
        "verify",
        "--tasks",
        TASKS,
        "--rollouts",
        rolloutsFile,
        "--out",
        expectedFile,
        "-q",
      ]);
      child.exited.then(({ code }) =>
        code === 0
          ? done(
              readFileSync(expectedFile, "utf8")
                .trim()
                .split("\n")
                .map((l) => JSON.parse(l)),
            )
          : fail(new Error(`gagar verify failed:\n${child.lines.join("\n")}`)),
      );
    });

    const port = await freePort();
    const env = { GAGAR_TOKEN: TOKEN };
    const serveArgs = [
      "--queue",
      redis.url,
      "--port",
      String(port),
      "--out",
      join(dir, "serve"),
      "--tasks",
      TASKS,
      ...LOCK,
    ];
    const worker = (name: string, extra: string[]) => {
      const w = startGagar(
        [
          "worker",
          "--queue",
          redis.url,
          "--jobs",
          "1",
          "--cache",
          join(dir, `cache-${name}`),
          ...LOCK,
          ...extra,
        ],
        env,
      );
      processes.push(w);
      return w;
    };
    // The three start together; the fetching worker reaches the service once it needs a pack.
    const shared = worker("shared", ["--tasks", TASKS]);
    const fetching = worker("fetching", ["--server", `http://127.0.0.1:${port}`]);
    let { serve, url } = await startServe(serveArgs, env);
    processes.push(serve);
    await Promise.all([shared.waitForLine(/taking jobs/), fetching.waitForLine(/taking jobs/)]);

    // Bad requests first: located 4xx, nothing queued, nothing stored.
    const bad = await Promise.all([
      post(`${url}/v1/verify`, '{"rollouts": [{"id": "a",'),
      post(`${url}/v1/verify`, { rollouts: [{ ...rollouts[0], patch: null }] }),
      post(`${url}/v1/verify`, { rollouts: [{ ...rollouts[0], taskId: "not-a-task" }] }),
      post(`${url}/v1/steps`, { groups: [] }),
      post(`${url}/v1/verify`, { rollouts }, { "content-type": "application/json" }),
    ]);
    expect(bad.map((b) => b.status)).toEqual([400, 400, 400, 400, 401]);
    expect(bad.map((b) => b.body.error.message)).toEqual([
      expect.stringMatching(/^request body: not valid JSON/),
      expect.stringMatching(/^request body \(field rollouts\.0\.patch\)/),
      expect.stringMatching(/^request body \(field rollouts\.0\.taskId\): no task pack "not-a-task"/),
      expect.stringMatching(/^request body \(field groups\)/),
      expect.stringMatching(/Bearer/),
    ]);
    const units = await openQueue(UNITS_QUEUE, { url: redis.url, prefix: "gagar" });
    const requests = await openQueue(REQUESTS_QUEUE, { url: redis.url, prefix: "gagar" });
    try {
      expect(await units.counts()).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0 });
      expect(await requests.counts()).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0 });
      const store = openStore(join(dir, "serve", "gagar.sqlite"), { readonly: true });
      expect(store.countVerdicts()).toBe(0);
      store.close();

      // 200 jobs, each verifying one rollout under an id of its own, over the distinct patches.
      const jobRollouts = Array.from({ length: JOBS }, (_, k) => ({
        ...rollouts[k % rollouts.length]!,
        id: `job${k}`,
      }));
      const accepted = [];
      for (let k = 0; k < JOBS; k += 20)
        accepted.push(
          ...(await Promise.all(
            jobRollouts.slice(k, k + 20).map((r) => post(`${url}/v1/verify`, { rollouts: [r] })),
          )),
        );
      expect(accepted.map((a) => a.status)).toEqual(Array(JOBS).fill(202));
      const jobIds = accepted.map((a) => a.body.jobId as string);
      expect(new Set(jobIds).size).toBe(JOBS);

      // SIGKILL a worker in the middle of a verification: the other one takes its job once its lock expires.
      // (the next verification it starts from now on: it is killed within milliseconds of starting it)
      const started = await shared.waitForLine(/verifying .* \(attempt 1\)/, 60_000, shared.lines.length);
      const killedUnit = /verifying (\S+ patch \w+)/.exec(started)![1]!;
      await shared.stop("SIGKILL");
      // SIGKILL the service while jobs are queued, and start it again on the same port.
      expect((await units.counts()).completed).toBeLessThan(rollouts.length);
      await serve.stop("SIGKILL");
      ({ serve, url } = await startServe(serveArgs, env));
      processes.push(serve);

      const done = await waitForJobs(url, jobIds, 180_000);
      expect(done.filter((j) => j.state !== "completed")).toEqual([]);

      const expected = await reference;
      const byRollout = new Map(rollouts.map((r, i) => [`${r.taskId}\0${r.patch}`, expected[i]!]));
      done.forEach((job, k) => {
        const [verdict] = (job.result as { verdicts: Verdict[] }).verdicts;
        expect(verdict!.rolloutId).toBe(`job${k}`);
        expect(essence(verdict!)).toEqual(
          essence(byRollout.get(`${jobRollouts[k]!.taskId}\0${jobRollouts[k]!.patch}`)!),
        );
      });

      // Each (task, patch) verified to completion once, the killed one included (by another worker).
      const finished = [shared, fetching].flatMap((w) =>
        w.lines.flatMap((l) => /verified (\S+ patch \w+):/.exec(l)?.[1] ?? []),
      );
      expect(finished.length).toBe(rollouts.length);
      expect(new Set(finished).size).toBe(rollouts.length);
      expect(shared.lines.some((l) => l.includes(`verified ${killedUnit}:`))).toBe(false);
      expect(fetching.lines.some((l) => l.includes(`verifying ${killedUnit} (attempt 2)`))).toBe(true);
      expect(await units.counts()).toMatchObject({
        completed: rollouts.length,
        failed: 0,
        waiting: 0,
        active: 0,
      });
      // SIGTERM: a worker with nothing running stops at once and cleanly.
      expect(await fetching.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(fetching.lines.at(-1)).toMatch(/stopped$/);
    } finally {
      await units.close();
      await requests.close();
    }
  }, 300_000);
});

/** Polls the jobs in order until each is finished (they finish at about the same time). */
async function waitForJobs(url: string, ids: string[], timeoutMs: number): Promise<JobView[]> {
  const deadline = Date.now() + timeoutMs;
  const views: JobView[] = [];
  for (const id of ids) {
    for (;;) {
      const res = await fetch(`${url}/v1/jobs/${id}`, { headers: auth }).catch(() => undefined);
      const view = res?.ok ? ((await res.json()) as JobView) : undefined;
      if (view && (view.state === "completed" || view.state === "failed")) {
        views.push(view);
        break;
      }
      if (Date.now() > deadline) throw new Error(`job ${id} not finished in time: ${JSON.stringify(view)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return views;
}
