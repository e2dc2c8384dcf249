import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { getEstimator } from "../advantage/estimators.ts";
import { ConfigError, InputError, isUserError } from "../errors.ts";
import { graderCapabilities, graderNames } from "../grade/registry.ts";
import { serviceJobHandler } from "../pipeline/service-jobs.ts";
import { graderCache, unitHandler, VerifierSessions, type VerifyUnit } from "../pipeline/work-units.ts";
import { openQueue } from "../queue/open-queue.ts";
import type { JobQueue } from "../queue/types.ts";
import type { BackendName } from "../sandbox/select.ts";
import { selectBackend } from "../sandbox/select.ts";
import { openStore } from "../store/run-store.ts";
import { PackCatalog, PackSource } from "../verify/pack/pack-catalog.ts";
import { buildApp, type ServiceLimits } from "./app.ts";
import { isLoopback } from "./auth.ts";
import { ServiceMetrics } from "./metrics.ts";
import { BODY, type PrepareContext } from "./prepare-jobs.ts";

/** The queue names, shared by `gagar serve` and `gagar worker`. */
export const REQUESTS_QUEUE = "gagar-requests";
export const UNITS_QUEUE = "gagar-units";

export interface ServiceOptions {
  host: string;
  port: number;
  token?: string;
  /** `redis://…`: jobs go to Redis for `gagar worker`; without it the service runs them itself. */
  queueUrl?: string;
  queuePrefix?: string;
  /** Lock time of a running job (see BullmqQueue); tests shorten it. */
  lockMs?: number;
  /** Folders of task packs (each a folder of task folders, or one task folder). */
  tasks: readonly string[];
  /** The run store file: every finished `/v1/steps` is recorded there. */
  storeFile: string;
  /** Verifications and gradings run at once by the service itself (without a queue URL). */
  jobs: number;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
  protectedPolicy: VerifyUnit["protectedPolicy"];
  limits: ServiceLimits;
  /** Options per grader name for model graders the service offers (their server, model, key). */
  graderSettings: Readonly<Record<string, Record<string, unknown>>>;
  /** Behavioural probes before grading groups whose task pack is served (absent: none). */
  probes?: { budgetSec: number };
  version: string;
  log: (line: string) => void;
}

export interface RunningService {
  url: string;
  app: FastifyInstance;
  runId: string;
  /** Stops accepting requests, hands request jobs back, lets in-process units finish within `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/** How many request jobs the service coordinates at once (they mostly wait on units). */
const REQUEST_CONCURRENCY = 256;

/**
 * Starts `gagar serve`: loads the task packs, opens the store and the queues, starts coordinating
 * request jobs (and, without a queue URL, running the units too), then listens. Refuses to listen
 * beyond loopback without a token.
 */
export async function startService(o: ServiceOptions): Promise<RunningService> {
  if (!isLoopback(o.host) && !o.token)
    throw new ConfigError(
      `serving on ${o.host} (not loopback) needs a bearer token: pass --token-env VAR or set GAGAR_TOKEN`,
    );
  const catalog = PackCatalog.load(o.tasks);
  // Opened so far, closed in reverse if starting fails half-way.
  const opened: Array<{ close(): unknown }> = [];
  try {
    const store = openStore(o.storeFile);
    opened.push(store);
    const runId = store.createRun({
      service: {
        queue: o.queueUrl ? "redis" : "in-process",
        tasks: [...o.tasks],
        protected: o.protectedPolicy,
      },
      limits: o.limits,
      version: o.version,
    });
    const queueOptions = { url: o.queueUrl, prefix: o.queuePrefix, lockMs: o.lockMs };
    const requests = await openQueue(REQUESTS_QUEUE, queueOptions);
    opened.push({ close: () => requests.close() });
    const units = await openQueue(UNITS_QUEUE, queueOptions);
    opened.push({ close: () => units.close() });
    const metrics = new ServiceMetrics({ requests, units });
    let stepIdx = 0;
    requests.process(
      serviceJobHandler({ units, store, runId, nextStepIdx: () => stepIdx++, observe: metrics }),
      { concurrency: REQUEST_CONCURRENCY },
    );
    const sessions = o.queueUrl ? undefined : await runUnitsHere(o, catalog, units);
    if (sessions) opened.push(sessions);
    const app = buildApp({
      version: o.version,
      token: o.token,
      requests,
      units,
      store,
      metrics,
      limits: o.limits,
      prepare: prepareContext(o, catalog),
      log: o.log,
    });
    opened.push(app);
    try {
      await app.listen({ host: o.host, port: o.port });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (["EADDRINUSE", "EACCES", "EADDRNOTAVAIL", "ENOTFOUND", "EAI_AGAIN"].includes(code ?? ""))
        throw new ConfigError(`cannot listen on ${o.host}:${o.port}: ${(e as Error).message}`);
      throw e;
    }
    const { port } = app.server.address() as AddressInfo;
    const host = o.host.includes(":") ? `[${o.host}]` : o.host;
    return {
      url: `http://${host}:${port}`,
      app,
      runId,
      close: async (graceMs = 0) => {
        await app.close();
        // Request jobs only wait on units: hand them back at once, a restarted service resumes them.
        await requests.close({ graceMs: 0 });
        await units.close({ graceMs });
        await sessions?.close();
        store.close();
      },
    };
  } catch (e) {
    for (const r of opened.reverse()) await Promise.resolve(r.close()).catch(() => {});
    throw e;
  }
}

/** Without a queue, the service is its own worker: units run in this process, `jobs` at a time. */
async function runUnitsHere(o: ServiceOptions, catalog: PackCatalog, units: JobQueue) {
  const sandbox = await selectBackend(o.sandbox, { allowUnsandboxed: o.allowUnsandboxed, warn: o.log });
  const sessions = new VerifierSessions(sandbox, o.log);
  units.process(
    unitHandler({
      packs: new PackSource({ shared: catalog }),
      verifier: (policy) => sessions.get(policy),
      grader: graderCache(o.graderSettings),
    }),
    { concurrency: o.jobs },
  );
  return sessions;
}

/** What a request may ask for, given this service's configuration. */
export function prepareContext(
  o: Pick<ServiceOptions, "protectedPolicy" | "graderSettings" | "probes">,
  catalog: PackCatalog,
): PrepareContext {
  const build = graderCache(o.graderSettings);
  return {
    catalog,
    protectedPolicy: o.protectedPolicy,
    ...(o.probes && { probes: o.probes }),
    checkGrader(name, options, field) {
      if (!graderNames().includes(name))
        throw new InputError(
          { file: BODY, field: "grader" },
          `unknown grader "${name}"; known graders: ${graderNames().join(", ")}`,
        );
      if (graderCapabilities(name)?.needsModel) {
        if (!o.graderSettings[name])
          throw new InputError(
            { file: BODY, field: "grader" },
            `the ${name} grader is not configured on this service (start it with --grader-config naming its model server)`,
          );
        if (Object.keys(options).length)
          throw new InputError(
            { file: BODY, field },
            `options of the ${name} grader are the service's own configuration; leave ${field} out`,
          );
        return;
      }
      try {
        build(name, options);
      } catch (e) {
        if (isUserError(e)) throw new InputError({ file: BODY, field }, e.message);
        throw e;
      }
    },
    checkEstimator(name, field) {
      try {
        getEstimator(name);
      } catch (e) {
        throw new InputError({ file: BODY, field }, (e as Error).message);
      }
    },
  };
}
