import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { computeGroupAdvantages } from "../src/advantage/group-advantages.ts";
import { DEFAULTS } from "../src/config/defaults.ts";
import { AdvantagesRequest, type JobView } from "../src/contracts/service.ts";
import { InProcessQueue } from "../src/queue/in-process-queue.ts";
import { startRedis } from "../src/queue/testing/redis-server.ts";
import { buildApp } from "../src/server/app.ts";
import { ServiceMetrics } from "../src/server/metrics.ts";
import { prepareContext } from "../src/server/start-service.ts";
import { openStore } from "../src/store/run-store.ts";
import { PackCatalog } from "../src/verify/pack/pack-catalog.ts";
import { startGagar, startServe } from "../test/support/gagar-process.ts";
import { median, report } from "./stats.ts";

const ROOT = resolve(import.meta.dirname, "..");
const GROUP_SIZE = 16;
const CLIENTS = 8;
const REQUESTS_PER_CLIENT = 150;

/** A request of `groups` random groups of 16, each with a ranking of its passing candidates. */
function advantageRequest(seed: number, groups: number) {
  let s = seed >>> 0;
  const rand = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const body = { groups: [] as unknown[], rankings: [] as unknown[] };
  for (let g = 0; g < groups; g++) {
    const rate = rand();
    const candidates = Array.from({ length: GROUP_SIZE }, (_, i) => ({
      id: `c${i}`,
      patch: "",
      passed: rand() < rate,
      trajectory: { tokens: 500 + Math.floor(rand() * 4000) },
    }));
    const passing = candidates.filter((c) => c.passed).map((c) => c.id);
    const tiers: string[][] = [];
    for (const id of passing) {
      if (tiers.length && rand() < 0.3) tiers.at(-1)!.push(id);
      else tiers.push([id]);
    }
    body.groups.push({ schemaVersion: 1, id: `g${seed}-${g}`, task: { id: "t" }, candidates });
    body.rankings.push({ groupId: `g${seed}-${g}`, ranking: tiers });
  }
  return body;
}

async function advantagesOverHttp(): Promise<void> {
  const requests = new InProcessQueue("requests");
  const units = new InProcessQueue("units");
  const store = openStore(":memory:");
  const app = buildApp({
    version: "bench",
    requests,
    units,
    store,
    metrics: new ServiceMetrics({ requests, units }),
    limits: { maxQueued: 1, maxInflight: 1024, bodyLimitBytes: 64 * 1024 * 1024 },
    prepare: prepareContext(
      { protectedPolicy: "strip", graderSettings: {} },
      PackCatalog.load([join(ROOT, "examples/tasks")]),
    ),
    log: () => {},
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/advantages`;
  try {
    for (const groups of [1, 64]) {
      const bodies = Array.from({ length: CLIENTS * REQUESTS_PER_CLIENT }, (_, i) =>
        advantageRequest(i, groups),
      );
      const texts = bodies.map((b) => JSON.stringify(b));
      const call = async (i: number) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: texts[i],
        });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      };
      for (let i = 0; i < 50; i++) await call(i); // warm-up
      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          for (let k = 0; k < REQUESTS_PER_CLIENT; k++) {
            const t0 = performance.now();
            await call(c * REQUESTS_PER_CLIENT + k);
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const n = latencies.length;
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.floor(n * 0.99)]!;
      // The same work without HTTP: parsing the body, validating it and the math.
      const direct = performance.now();
      for (const text of texts) {
        const request = AdvantagesRequest.parse(JSON.parse(text));
        const rankings = new Map(request.rankings.map((r) => [r.groupId, r]));
        for (const g of request.groups)
          JSON.stringify(computeGroupAdvantages(g, rankings.get(g.id), { ...DEFAULTS.advantage }).rows);
      }
      const directSeconds = (performance.now() - direct) / 1000;
      const label = `/v1/advantages, ${groups} group${groups > 1 ? "s" : ""} of ${GROUP_SIZE} per request`;
      report(
        label,
        `${(n / seconds).toFixed(0)} req/s, ${((n * groups) / seconds).toFixed(0)} groups/s · latency p50 ${median(latencies).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${CLIENTS} clients)`,
      );
      report(`${label}: in-process / HTTP throughput`, `${(seconds / directSeconds).toFixed(2)}x`);
    }
  } finally {
    await app.close();
    store.close();
  }
}

/**
 * Verification throughput of the example pack's 60 rollouts through Redis with 1 and with 2
 * `gagar worker` processes (one sandbox each), measured from submission to the last verdict, each
 * on a fresh key prefix so that nothing is found done already.
 */
async function verificationScaling(): Promise<void> {
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), "gagar-bench-service-"));
  const tasks = join(ROOT, "examples/tasks");
  const rollouts = readdirSync(join(ROOT, "examples/rollouts"))
    .filter((f) => f.endsWith(".jsonl"))
    .flatMap((f) =>
      readFileSync(join(ROOT, "examples/rollouts", f), "utf8")
        .trim()
        .split("\n")
        .map((l) => {
          const { id, taskId, patch } = JSON.parse(l);
          return { id, taskId, patch };
        }),
    );
  const seconds: Record<number, number> = {};
  try {
    for (const workers of [1, 2]) {
      const prefix = ["--queue-prefix", `bench${workers}`];
      const { serve, url } = await startServe([
        "--queue",
        redis.url,
        "--port",
        "0",
        "--out",
        join(dir, `serve${workers}`),
        ...prefix,
      ]);
      const started = Array.from({ length: workers }, () =>
        startGagar(["worker", "--queue", redis.url, "--jobs", "1", "--tasks", tasks, ...prefix]),
      );
      try {
        await Promise.all(started.map((w) => w.waitForLine(/taking jobs/, 120_000)));
        const t0 = performance.now();
        const res = await fetch(`${url}/v1/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ rollouts, wait: 600 }),
        });
        let job = (await res.json()) as JobView;
        while (job.state !== "completed" && job.state !== "failed") {
          await new Promise((r) => setTimeout(r, 200));
          job = (await (await fetch(`${url}/v1/jobs/${job.jobId}`)).json()) as JobView;
        }
        if (job.state !== "completed") throw new Error(`verification failed: ${job.error}`);
        seconds[workers] = (performance.now() - t0) / 1000;
        report(
          `verify 60 patches through Redis, ${workers} worker${workers > 1 ? "s" : ""}`,
          `${seconds[workers]!.toFixed(1)} s, ${(rollouts.length / seconds[workers]!).toFixed(2)} patches/s`,
        );
      } finally {
        await Promise.all(started.map((w) => w.stop("SIGTERM")));
        await serve.stop("SIGTERM");
      }
    }
    report("verify throughput ratio 2 workers / 1 worker", `${(seconds[1]! / seconds[2]!).toFixed(2)}x`);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await advantagesOverHttp();
  await verificationScaling();
}
