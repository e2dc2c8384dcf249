import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobView } from "../src/contracts/service.ts";
import { type RunningService, startService } from "../src/server/start-service.ts";
import { openStore } from "../src/store/run-store.ts";

/**
 * A bounded load test over loopback HTTP against a real service (in-process queue, real sandboxes):
 * concurrent clients below the service's bounds all get their answers; above them, the surplus gets
 * clean 429s (JSON error, Retry-After) and nothing else fails. Bounds are small so the test is quick:
 * 12 queued units, 24 requests in flight.
 */
const ROOT = resolve(import.meta.dirname, "..");
const MAX_QUEUED = 12;
const MAX_INFLIGHT = 24;

const rollouts = Object.fromEntries(
  readFileSync(join(ROOT, "examples/rollouts/tinyini-delimiter.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .map((r) => [r.id.slice(-3), r.patch as string]),
);
/** A patch the gate rejects before any sandbox starts (it writes into .git/), distinct per `k`. */
const rejected = (k: string) =>
  `diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+echo ${k}\n`;
const stepBody = (k: string, wait: number | false) => ({
  groups: [
    {
      id: `g-${k}`,
      taskId: "tinyini-delimiter",
      candidates: [
        { id: "clean", patch: rollouts.r01 },
        { id: "larger", patch: rollouts.r02 },
        { id: "hook", patch: rejected(k) },
      ],
    },
  ],
  wait,
});

let service: RunningService;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gagar-load-"));
  service = await startService({
    host: "127.0.0.1",
    port: 0,
    tasks: [join(ROOT, "examples/tasks")],
    storeFile: join(dir, "store.sqlite"),
    jobs: 2,
    sandbox: "auto",
    protectedPolicy: "strip",
    limits: { maxQueued: MAX_QUEUED, maxInflight: MAX_INFLIGHT, bodyLimitBytes: 8 * 1024 * 1024 },
    graderSettings: {},
    version: "test",
    log: () => {},
  });
}, 120_000);
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

async function activeUnits(): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return Number(/gagar_jobs\{queue="units",state="active"\} (\d+)/.exec(text)?.[1] ?? 0);
}

function expectClean429(r: {
  status: number;
  retryAfter: string | null;
  body: { error?: { code: string } };
}) {
  expect(r.status).toBe(429);
  expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(r.body.error?.code).toMatch(/^(queue-full|busy)$/);
}

/** Random groups of 16 with some passing candidates, and a ranking of the passes. */
function advantageRequest(seed: number) {
  const groups = [];
  const rankings = [];
  for (let g = 0; g < 8; g++) {
    const candidates = Array.from({ length: 16 }, (_, i) => ({
      id: `c${i}`,
      patch: "",
      passed: (seed * 31 + g * 7 + i * 13) % 3 !== 0,
    }));
    groups.push({ schemaVersion: 1, id: `s${seed}-g${g}`, task: { id: "t" }, candidates });
    rankings.push({
      groupId: `s${seed}-g${g}`,
      ranking: candidates.filter((c) => c.passed).map((c) => [c.id]),
    });
  }
  return { groups, rankings };
}

describe("bounded load over loopback", () => {
  it("/v1/advantages: concurrent clients under the in-flight bound all get their rows", async () => {
    const clients = Array.from({ length: 16 }, async (_, c) => {
      const answers = [];
      for (let k = 0; k < 5; k++) answers.push(await post("/v1/advantages", advantageRequest(c * 5 + k)));
      return answers;
    });
    const answers = (await Promise.all(clients)).flat();
    expect(answers.map((a) => a.status)).toEqual(Array(80).fill(200));
    for (const a of answers) expect(a.body.rows).toHaveLength(8 * 16);
  });

  it("/v1/advantages: past the in-flight bound, exactly the surplus gets 429 and the rest their rows", async () => {
    // Each client sends its headers and half its body, and finishes only when all are in flight.
    const clients = 36;
    const bodies = Array.from({ length: clients }, (_, c) => JSON.stringify(advantageRequest(1000 + c)));
    let started = 0;
    let release = () => {};
    const allStarted = new Promise<void>((r) => {
      release = r;
    });
    const answers = await Promise.all(
      bodies.map(
        (body) =>
          new Promise<{ status: number; retryAfter: string | null; body: { error?: { code: string } } }>(
            (done, fail) => {
              const req = httpRequest(`${service.url}/v1/advantages`, {
                method: "POST",
                headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
              });
              req.on("response", (res) => {
                let text = "";
                res.setEncoding("utf8");
                res.on("data", (d) => {
                  text += d;
                });
                res.on("end", () =>
                  done({
                    status: res.statusCode!,
                    retryAfter: res.headers["retry-after"] ?? null,
                    body: JSON.parse(text),
                  }),
                );
              });
              req.on("error", fail);
              const half = Math.floor(body.length / 2);
              req.write(body.slice(0, half), () => {
                if (++started === clients) release();
              });
              void allStarted.then(() => setTimeout(() => req.end(body.slice(half)), 200));
            },
          ),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(MAX_INFLIGHT).fill(200), ...Array(clients - MAX_INFLIGHT).fill(429)]);
    for (const a of answers.filter((x) => x.status === 429)) expectClean429(a);
  });

  it("/v1/steps: concurrent steps under the queue bound all complete, graded and recorded", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, k) => post("/v1/steps", stepBody(`below${k}`, 120))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    for (const a of answers) {
      const job = a.body as JobView;
      expect(job.state).toBe("completed");
      const result = job.result as {
        groups: { kept: boolean; ranking?: unknown }[];
        verdicts: { reason: string }[];
      };
      expect(result.verdicts.map((v) => v.reason)).toEqual(["passed", "passed", "patch-rejected"]);
      expect(result.groups[0]).toMatchObject({ kept: true, ranking: expect.anything() });
    }
  });

  it("/v1/steps: past the queue bound, the surplus gets clean 429s and every accepted step completes", async () => {
    // Two fresh verifications occupy both of the service's sandbox slots, so nothing drains meanwhile.
    const blockers = await post("/v1/verify", {
      rollouts: ["r03", "r04"].map((r) => ({ id: r, taskId: "tinyini-delimiter", patch: rollouts[r] })),
    });
    expect(blockers.status).toBe(202);
    const deadline = Date.now() + 30_000;
    while ((await activeUnits()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await activeUnits()).toBe(2);

    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, k) => post("/v1/steps", stepBody(`above${k}`, false))),
    );
    const accepted = burst.filter((a) => a.status === 202);
    const refused = burst.filter((a) => a.status !== 202);
    // Each step adds one new unit (its rejected patch); 2 running + 10 accepted fill the bound of 12.
    expect(accepted).toHaveLength(MAX_QUEUED - 2);
    for (const r of refused) expectClean429(r);

    for (const a of [blockers, ...accepted]) {
      let job = a.body as JobView;
      while (job.state !== "completed" && job.state !== "failed") {
        await new Promise((r) => setTimeout(r, 200));
        job = (await (await fetch(`${service.url}/v1/jobs/${job.jobId}`)).json()) as JobView;
      }
      expect(job).toMatchObject({ state: "completed" });
    }
    const again = await post("/v1/steps", stepBody("above15", 60));
    expect(again.status).toBe(200);

    const store = openStore(join(dir, "store.sqlite"), { readonly: true });
    expect(store.stepMetrics(service.runId)).toHaveLength(8 + accepted.length + 1);
    store.close();
  });
});
