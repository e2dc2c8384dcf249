import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { z } from "zod";
import { computeGroupAdvantages } from "../advantage/group-advantages.ts";
import {
  AdvantagesRequest,
  DEFAULT_WAIT_SEC,
  GradeRequest,
  type JobView,
  StepRequest,
  VerifyRequest,
} from "../contracts/service.ts";
import { InputError } from "../errors.ts";
import { parseRecord } from "../io/validate.ts";
import type { JobQueue, JobSnapshot } from "../queue/types.ts";
import type { RunStore } from "../store/run-store.ts";
import { packArchive } from "../verify/pack/pack-archive.ts";
import { bearerMatches } from "./auth.ts";
import { errorAnswer, HttpError } from "./http-errors.ts";
import type { ServiceMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import {
  BODY,
  type PrepareContext,
  type PreparedJob,
  prepareGrade,
  prepareStep,
  prepareVerify,
} from "./prepare-jobs.ts";
import { runReportPage } from "./run-report.ts";

export interface ServiceLimits {
  /** Work units (verifications, gradings) waiting or running, past which new jobs get a 429. */
  maxQueued: number;
  /** POST requests being handled at once, past which new ones get a 429. */
  maxInflight: number;
  bodyLimitBytes: number;
}

export interface AppDeps {
  version: string;
  /** Required as `Authorization: Bearer <token>` on every route but /healthz and /openapi.json. */
  token?: string;
  requests: JobQueue;
  units: JobQueue;
  /** The run store the service records its steps in; its runs' reports are served from it. */
  store: RunStore;
  prepare: PrepareContext;
  metrics: ServiceMetrics;
  limits: ServiceLimits;
  /** Where internal errors are logged (with their stack); clients never see them. */
  log: (line: string) => void;
}

const PUBLIC = new Set(["/healthz", "/openapi.json"]);
/** Attempts of a request job: it only waits on units, so a second try is for a lost service. */
const REQUEST_ATTEMPTS = 2;

/**
 * The HTTP service: routes, authentication, limits and error answers. Jobs go to `requests` (served
 * by `serviceJobHandler`), their work to `units`; this module only validates, admits and answers.
 */
export function buildApp(deps: AppDeps): FastifyInstance {
  const { limits } = deps;
  // On close, open connections are cut: a client waiting on a job retries, and the same request is the same job.
  const app = Fastify({
    bodyLimit: limits.bodyLimitBytes,
    logger: false,
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (e) {
      done(new InputError({ file: BODY }, `not valid JSON (${(e as Error).message})`), undefined);
    }
  });

  addGates(app, deps);
  addRoutes(app, deps);
  return app;
}

/** Authentication, the in-flight bound, metrics of every answer, and the error answers. */
function addGates(app: FastifyInstance, deps: AppDeps): void {
  const { metrics, limits } = deps;
  let inflight = 0;
  app.addHook("onRequest", async (req, reply) => {
    const path = req.url.split("?")[0]!;
    if (
      deps.token !== undefined &&
      !PUBLIC.has(path) &&
      !bearerMatches(req.headers.authorization, deps.token)
    )
      throw new HttpError(401, "unauthorized", "send Authorization: Bearer <the service's token>", {
        "www-authenticate": 'Bearer realm="gagar"',
      });
    if (req.method !== "POST") return;
    if (inflight >= limits.maxInflight) {
      metrics.rejectedRequest("in-flight");
      throw new HttpError(
        429,
        "busy",
        `${inflight} requests in flight, the service's bound; try again shortly`,
        {
          "retry-after": "1",
        },
      );
    }
    inflight++;
    reply.raw.once("close", () => inflight--);
  });
  app.addHook("onResponse", async (req, reply) => {
    metrics.answered(req.routeOptions.url ?? "unmatched", reply.statusCode);
  });

  app.setErrorHandler((error, _req, reply) => {
    const answer = errorAnswer(error);
    if (answer.internal) deps.log(`internal error: ${(error as Error)?.stack ?? String(error)}`);
    void reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({
      error: { status: 404, code: "not-found", message: `no route ${req.method} ${req.url.split("?")[0]}` },
    });
  });
}

/** The service's routes: health, metrics, its OpenAPI document, the /v1 jobs, packs and run reports. */
function addRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { requests, units, metrics } = deps;
  const admit = serial();
  app.get("/healthz", async (_req, reply) => {
    try {
      const c = await withTimeout(units.counts(), 2000);
      return { status: "ok", queue: units.backend, queued: c.waiting + c.active };
    } catch (e) {
      return reply.code(503).send({ status: "unavailable", reason: `queue: ${(e as Error).message}` });
    }
  });
  app.get("/metrics", async (_req, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  const openapi = openApiDocument(deps.version);
  app.get("/openapi.json", async () => openapi);

  app.post("/v1/advantages", async (req) => advantages(deps, parse(AdvantagesRequest, req.body)));
  app.post("/v1/verify", async (req, reply) => {
    const body = parse(VerifyRequest, req.body);
    return submit(deps, admit, reply, prepareVerify(body, deps.prepare), body.wait);
  });
  app.post("/v1/grade", async (req, reply) => {
    const body = parse(GradeRequest, req.body);
    return submit(deps, admit, reply, prepareGrade(body, deps.prepare), body.wait);
  });
  app.post("/v1/steps", async (req, reply) => {
    const body = parse(StepRequest, req.body);
    return submit(deps, admit, reply, prepareStep(body, deps.prepare), body.wait);
  });

  app.get<{ Params: { id: string } }>("/v1/jobs/:id", async (req) => {
    const snapshot = await requests.get(req.params.id);
    if (!snapshot)
      throw new HttpError(404, "not-found", `no job "${req.params.id}" (unknown, or past retention)`);
    return jobView(snapshot);
  });
  app.get<{ Params: { digest: string } }>("/v1/packs/:digest", async (req, reply) => {
    const { digest } = req.params;
    const pack = /^[0-9a-f]{64}$/.test(digest) ? deps.prepare.catalog.byDigest(digest) : undefined;
    if (!pack) throw new HttpError(404, "not-found", `no task pack with digest "${digest}" on this service`);
    return reply.type("application/x-tar").send(packArchive(pack.dir));
  });
  app.get<{ Params: { id: string } }>("/v1/runs/:id/report", async (req, reply) =>
    reply.type("text/html; charset=utf-8").send(await runReportPage(deps.store, req.params.id)),
  );
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  return parseRecord(schema, body, { file: BODY });
}

/** `/v1/advantages`: what `gagar advantages` computes, with errors located in the request body. */
function advantages(deps: AppDeps, request: AdvantagesRequest) {
  deps.prepare.checkEstimator(request.options.estimator, "options.estimator");
  const byGroup = new Map(request.rankings.map((ranking, index) => [ranking.groupId, { ranking, index }]));
  const rows = [];
  const warnings: string[] = [];
  for (const [g, group] of request.groups.entries()) {
    const entry = byGroup.get(group.id);
    try {
      const result = computeGroupAdvantages(group, entry?.ranking, request.options, { file: BODY });
      rows.push(...result.rows);
      warnings.push(...result.warnings);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      // The math names fields inside one ranking or one group; say which one in the body.
      const inRanking = e.location.field?.startsWith("ranking.");
      const prefix = inRanking ? `rankings.${entry?.index}` : `groups.${g}`;
      throw new InputError({ file: BODY, field: `${prefix}.${e.location.field}` }, e.detail);
    }
  }
  const groupIds = new Set(request.groups.map((g) => g.id));
  for (const id of byGroup.keys())
    if (!groupIds.has(id)) warnings.push(`rankings name group "${id}", which is not in groups`);
  return { rows, warnings };
}

/**
 * Admits a job (unless the same job exists: then that one is answered) and answers with it: 200 when
 * it finished within `wait`, 202 with its Location otherwise. Admission puts the job's units on the
 * queue itself, one request at a time, so that the bound holds exactly: a request is refused when
 * the units it would add (those not queued, running or done already) would take the units waiting
 * or running past `maxQueued`.
 */
async function submit(
  deps: AppDeps,
  admit: Serial,
  reply: FastifyReply,
  job: PreparedJob,
  wait: boolean | number,
) {
  const { requests, units, limits, metrics } = deps;
  if (job.units.length > limits.maxQueued)
    throw new HttpError(
      413,
      "too-large",
      `the request holds ${job.units.length} units of work, more than this service queues at once (${limits.maxQueued}); split it`,
    );
  await admit(async () => {
    const existing = await requests.get(job.id);
    if (existing && existing.state !== "failed") return;
    const fresh = [];
    for (const unit of job.units) {
      const known = await units.get(unit.id);
      if (!known || known.state === "failed") fresh.push(unit);
    }
    const c = await units.counts();
    const queued = c.waiting + c.active;
    if (queued + fresh.length > limits.maxQueued) {
      metrics.rejectedRequest("queue-full");
      const rate = metrics.unitRate();
      const excess = queued + fresh.length - limits.maxQueued;
      const seconds = rate ? Math.min(300, Math.max(1, Math.ceil(excess / rate))) : 5;
      throw new HttpError(
        429,
        "queue-full",
        `${queued} units of work queued; this request's ${fresh.length} more would pass the bound of ${limits.maxQueued}`,
        { "retry-after": String(seconds) },
      );
    }
    for (const unit of fresh) await units.add(unit.kind, unit.data, { jobId: unit.id });
    if (existing) await requests.retry(job.id);
    else await requests.add(job.kind, job.data, { jobId: job.id, attempts: REQUEST_ATTEMPTS });
  });
  const waitMs = wait === true ? DEFAULT_WAIT_SEC * 1000 : wait === false ? 0 : wait * 1000;
  const snapshot = waitMs > 0 ? await requests.waitFor(job.id, waitMs) : await requests.get(job.id);
  if (!snapshot) throw new HttpError(500, "internal", `job ${job.id} vanished right after it was queued`);
  const final = snapshot.state === "completed" || snapshot.state === "failed";
  return reply
    .code(final ? 200 : 202)
    .header("location", `/v1/jobs/${job.id}`)
    .send(jobView(snapshot));
}

/** Runs admissions one after another (each reads the queue's depth, then adds to it). */
type Serial = <T>(fn: () => Promise<T>) => Promise<T>;

function serial(): Serial {
  let last: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = last.then(fn);
    last = run.catch(() => {});
    return run;
  };
}

export function jobView(s: JobSnapshot): JobView {
  const view: JobView = {
    jobId: s.id,
    kind: s.name as JobView["kind"],
    state: s.state,
    createdAt: new Date(s.createdAt).toISOString(),
  };
  const p = s.progress as { done?: unknown; total?: unknown } | undefined;
  if (p && typeof p.done === "number" && typeof p.total === "number")
    view.progress = { done: p.done, total: p.total };
  if (s.state === "completed") view.result = s.result;
  if (s.state === "failed" && s.error) view.error = s.error;
  if (s.finishedAt !== undefined) view.finishedAt = new Date(s.finishedAt).toISOString();
  return view;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
