import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "../config/defaults.ts";
import { assembleStep, recordStep, type StepData, stepGroups } from "../pipeline/service-step.ts";
import { InProcessQueue } from "../queue/in-process-queue.ts";
import { openStore, type RunStore } from "../store/run-store.ts";
import { memoryStore, ranking, tempDir, verdict } from "../store/testing/fixtures.ts";
import { PackCatalog } from "../verify/pack/pack-catalog.ts";
import { buildApp, type ServiceLimits } from "./app.ts";
import { ServiceMetrics } from "./metrics.ts";
import { prepareContext } from "./start-service.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const TASKS = join(ROOT, "examples/tasks");
const TOKEN = "s3cret-token";
const jsonl = (file: string) =>
  readFileSync(join(ROOT, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

let catalog: PackCatalog;
beforeAll(() => {
  catalog = PackCatalog.load([TASKS]);
});

/**
 * The app with in-process queues that nobody processes: what a request queues stays there, so the
 * tests can see exactly what was (not) enqueued. Jobs that must run are tested end to end elsewhere.
 */
function service(limits: Partial<ServiceLimits> = {}, token?: string, store: RunStore = memoryStore()) {
  const requests = new InProcessQueue("requests");
  const units = new InProcessQueue("units");
  const logged: string[] = [];
  const app = buildApp({
    version: "test",
    token,
    requests,
    units,
    store,
    metrics: new ServiceMetrics({ requests, units }),
    limits: { maxQueued: 100, maxInflight: 16, bodyLimitBytes: 1024 * 1024, ...limits },
    prepare: prepareContext({ protectedPolicy: "strip", graderSettings: {} }, catalog),
    log: (line) => logged.push(line),
  });
  apps.push(app);
  return { app, requests, units, logged };
}
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const post = (app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/json", ...headers },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });

const rollouts = jsonl("examples/rollouts/tinyini-delimiter.jsonl").map(({ id, taskId, patch }) => ({
  id,
  taskId,
  patch,
}));

describe("POST /v1/advantages", () => {
  it("gives the same rows as `gagar advantages`, for a trainer's bare rankings and non-default options", async () => {
    const groups = jsonl("examples/advantages/groups.jsonl");
    const rankings = jsonl("examples/advantages/rankings.jsonl");
    const cli = spawnSync(
      process.execPath,
      [
        "bin/gagar.js",
        "advantages",
        "examples/advantages/groups.jsonl",
        "--rankings",
        "examples/advantages/rankings.jsonl",
        "--estimator",
        "rloo",
        "--lambda",
        "0.3",
        "--scheme",
        "bottom",
        "--quiet",
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(cli.status).toBe(0);
    const expected = cli.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));

    const { app } = service();
    const res = await post(app, "/v1/advantages", {
      groups,
      rankings: rankings.map((r) => ({ groupId: r.groupId, ranking: r.ranking })),
      options: { estimator: "rloo", lambda: 0.3, scheme: "bottom" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().rows).toEqual(expected);
    expect(res.json().warnings).toEqual([]);
  });

  it("locates an error of the math in the body: a ranking naming an unknown candidate", async () => {
    const groups = jsonl("examples/advantages/groups.jsonl");
    const { app } = service();
    const res = await post(app, "/v1/advantages", {
      groups,
      rankings: [
        { groupId: groups[1].id, ranking: [["r6"]] },
        { groupId: groups[0].id, ranking: [["r2", "r99"]] },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      field: "rankings.1.ranking.0.1",
      message: expect.stringContaining('names candidate "r99"'),
    });
  });
});

describe("bad requests get a located 4xx, and nothing is enqueued", () => {
  const step = (taskId: string, extra: object = {}) => ({
    groups: [
      {
        id: "g",
        taskId,
        candidates: [
          { id: "a", patch: "" },
          { id: "b", patch: "x" },
        ],
      },
    ],
    ...extra,
  });
  const cases: [string, string, unknown, number, RegExp, string?][] = [
    ["malformed JSON", "/v1/verify", '{"rollouts": [', 400, /^request body: not valid JSON/],
    [
      "a schema violation",
      "/v1/verify",
      { rollouts: [{ ...rollouts[0], patch: 42 }] },
      400,
      /^request body \(field rollouts\.0\.patch\): .*expected string/,
      "rollouts.0.patch",
    ],
    ["a misspelt key", "/v1/verify", { rollout: rollouts }, 400, /field rollouts\)/, "rollouts"],
    [
      "an unknown task",
      "/v1/verify",
      { rollouts: [rollouts[0], { ...rollouts[1], taskId: "no-such-task" }] },
      400,
      /field rollouts\.1\.taskId\).*no task pack "no-such-task"/,
      "rollouts.1.taskId",
    ],
    [
      "duplicate rollout ids",
      "/v1/verify",
      { rollouts: [rollouts[0], { ...rollouts[1], id: rollouts[0]!.id }] },
      400,
      /field rollouts\.1\).*duplicate rollout id/,
    ],
    [
      "an unknown task in a step",
      "/v1/steps",
      step("nope"),
      400,
      /field groups\.0\.taskId\)/,
      "groups.0.taskId",
    ],
    [
      "an unknown estimator",
      "/v1/steps",
      step("tinyini-delimiter", { options: { estimator: "ppo" } }),
      400,
      /field options\.estimator\).*unknown estimator "ppo"/,
    ],
    [
      "token preservation without token counts",
      "/v1/steps",
      step("tinyini-delimiter", { options: { preserve: "token" } }),
      400,
      /field groups\.0\.candidates\.0\.trajectory\.tokens\)/,
    ],
    [
      "an unknown grader",
      "/v1/steps",
      step("tinyini-delimiter", { grader: "oracle" }),
      400,
      /unknown grader "oracle"/,
    ],
    [
      "a model grader the service has no model for",
      "/v1/steps",
      step("tinyini-delimiter", { grader: "agent" }),
      400,
      /agent grader is not configured on this service/,
    ],
    [
      "bad static grader options",
      "/v1/steps",
      step("tinyini-delimiter", { graderOptions: { weights: { nonsense: "x" } } }),
      400,
      /field graderOptions\)/,
    ],
    [
      "a workspace path in a group to grade",
      "/v1/grade",
      {
        groups: [
          { ...jsonl("examples/advantages/groups.jsonl")[0]!, task: { id: "calc", workspace: "/etc" } },
        ],
      },
      400,
      /field groups\.0\.task\.workspace\)/,
    ],
    ["a body that is not JSON", "/v1/verify", "rollouts=1", 415, /application\/json/],
  ];
  for (const [what, url, body, status, message, field] of cases) {
    it(`${what} (${url})`, async () => {
      const { app, requests, units } = service();
      const headers: Record<string, string> =
        what === "a body that is not JSON" ? { "content-type": "application/x-www-form-urlencoded" } : {};
      const res = await post(app, url, body, headers);
      expect(res.statusCode).toBe(status);
      const error = res.json().error;
      expect(error.message).toMatch(message);
      expect(error.status).toBe(status);
      if (field) expect(error.field).toBe(field);
      expect(res.body).not.toMatch(/\n\s+at /); // no stack trace
      expect(await requests.counts()).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0 });
      expect(await units.counts()).toEqual({ waiting: 0, active: 0, completed: 0, failed: 0 });
    });
  }

  it("a body over the limit gets a 413", async () => {
    const { app, requests } = service({ bodyLimitBytes: 2048 });
    const res = await post(app, "/v1/verify", { rollouts });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toMatch(/larger than this service accepts/);
    expect((await requests.counts()).waiting).toBe(0);
  });

  it("without the token, every route but /healthz and /openapi.json is a 401", async () => {
    const { app, requests } = service({}, TOKEN);
    for (const [method, url] of [
      ["POST", "/v1/verify"],
      ["POST", "/v1/advantages"],
      ["GET", "/v1/jobs/x"],
      ["GET", "/metrics"],
      ["GET", `/v1/packs/${catalog.digest("tinyini-delimiter")}`],
      ["GET", "/v1/runs/x/report"],
    ] as const) {
      for (const authorization of [undefined, "Bearer wrong", `Basic ${TOKEN}`]) {
        const res = await app.inject({
          method,
          url,
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
          payload: method === "POST" ? JSON.stringify({ rollouts }) : undefined,
        });
        expect(res.statusCode, `${method} ${url} with ${authorization}`).toBe(401);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
      }
    }
    expect((await app.inject({ url: "/healthz" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/openapi.json" })).statusCode).toBe(200);
    const ok = await post(app, "/v1/verify", { rollouts }, { authorization: `Bearer ${TOKEN}` });
    expect(ok.statusCode).toBe(202);
    expect((await requests.counts()).waiting).toBe(1);
  });
});

describe("admission", () => {
  it("queues a request and its units once, answers 202, and turns away what would pass the bound with 429", async () => {
    const { app, requests, units } = service({ maxQueued: 8 });
    const first = await post(app, "/v1/verify", { rollouts: rollouts.slice(0, 6) });
    expect(first.statusCode).toBe(202);
    expect(first.headers.location).toBe(`/v1/jobs/${first.json().jobId}`);
    expect(first.json()).toMatchObject({ kind: "verify", state: "waiting" });
    expect((await units.counts()).waiting).toBe(6);

    const again = await post(app, "/v1/verify", { rollouts: rollouts.slice(0, 6) });
    expect(again.statusCode).toBe(202);
    expect(again.json().jobId).toBe(first.json().jobId);
    // Two of these patches are queued already; the other three would make 9 > 8.
    const over = await post(app, "/v1/verify", { rollouts: rollouts.slice(4, 9) });
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(over.json().error).toMatchObject({
      code: "queue-full",
      message: expect.stringMatching(/3 more would pass the bound of 8/),
    });
    const fits = await post(app, "/v1/verify", { rollouts: rollouts.slice(4, 8) });
    expect(fits.statusCode).toBe(202);
    const huge = await post(app, "/v1/verify", {
      rollouts: Array.from({ length: 9 }, (_, i) => ({ ...rollouts[0], id: `r${i}`, patch: `p${i}` })),
    });
    expect(huge.statusCode).toBe(413);
    expect((await requests.counts()).waiting).toBe(2);
    expect((await units.counts()).waiting).toBe(8);

    const job = await app.inject({ url: `/v1/jobs/${first.json().jobId}` });
    expect(job.json()).toMatchObject({ jobId: first.json().jobId, state: "waiting" });
    const metrics = await app.inject({ url: "/metrics" });
    expect(metrics.body).toMatch(/gagar_requests_rejected_total\{reason="queue-full"\} 1/);
    expect(metrics.body).toMatch(/gagar_queue_depth\{queue="units"\} 8/);
  });
});

describe("documents", () => {
  it("serves an OpenAPI 3.1 document whose references all resolve", async () => {
    const { app } = service();
    const doc = (await app.inject({ url: "/openapi.json" })).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/advantages",
        "/v1/verify",
        "/v1/grade",
        "/v1/steps",
        "/v1/jobs/{id}",
        "/v1/runs/{id}/report",
      ]),
    );
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g)!;
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref.split("/").pop()!]).toBeDefined();
    expect(doc.components.schemas.StepRequest.required).toEqual(["groups"]);
  });

  it("serves a task pack by its digest, and 404 for an unknown one", async () => {
    const { app } = service();
    const digest = catalog.digest("semver-prerelease-order")!;
    const res = await app.inject({ url: `/v1/packs/${digest}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/x-tar");
    expect(res.rawPayload.subarray(0, 100).toString()).toContain("semver-prerelease-order/");
    expect((await app.inject({ url: `/v1/packs/${"0".repeat(64)}` })).statusCode).toBe(404);
  });
});

describe("GET /v1/runs/{id}/report", () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);

  /** A store file holding one step as the service records a `/v1/steps`: two passes and a failure. */
  function storeWithRecordedStep() {
    const storeFile = join(dir, "gagar.sqlite");
    const store = openStore(storeFile);
    const runId = store.createRun({ service: { queue: "in-process" } });
    const digest = catalog.digest("tinyini-delimiter")!;
    const picked = [rollouts[0]!, rollouts[1]!, rollouts[5]!];
    const data: StepData = {
      units: picked.map((r) => ({ taskId: r.taskId, digest, patch: r.patch, protectedPolicy: "strip" })),
      groups: [
        {
          id: "g",
          task: { id: "tinyini-delimiter", statement: "delimiters", language: "python" },
          digest,
          candidates: picked.map((r, unit) => ({
            id: r.id,
            unit,
            trajectory: { tokens: 1000 + unit, turns: 5 },
          })),
        },
      ],
      grader: "static",
      graderOptions: {},
      options: { ...DEFAULTS.advantage },
    };
    const groups = stepGroups(
      data,
      picked.map((r, i) => verdict(r.taskId, r.id, i < 2)),
    );
    const rankings = new Map([["g", ranking("g", [[picked[1]!.id], [picked[0]!.id]])]]);
    const facts = { verifications: { fresh: 3, reused: 0 }, stageMs: { total: 1 } };
    recordStep(store, runId, 0, groups, assembleStep(data, groups, rankings, facts));
    return { store, storeFile, runId };
  }

  it("serves the page `gagar report --store` writes for a run of its store, and a located 404 for another", async () => {
    const { store, storeFile, runId } = storeWithRecordedStep();
    const { app } = service({}, TOKEN, store);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const res = await app.inject({ url: `/v1/runs/${runId}/report`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");

    const written = join(dir, "report.html");
    const cli = spawnSync(
      process.execPath,
      ["bin/gagar.js", "report", "--store", storeFile, "--run", runId, "--out", written],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(cli.status).toBe(0);
    expect(cli.stderr).toContain(`report of run ${runId}: 1 step(s), 1 group(s)`);
    expect(res.body).toBe(readFileSync(written, "utf8"));
    expect(res.body).toContain(`data-group="${runId}/s0/g"`);

    const unknown = await app.inject({ url: "/v1/runs/run-nope/report", headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toEqual({
      status: 404,
      code: "not-found",
      message: 'no run "run-nope" in this service\'s run store',
    });
    store.close();
  });
});
