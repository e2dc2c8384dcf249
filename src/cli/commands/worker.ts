import { availableParallelism } from "node:os";
import { Readable } from "node:stream";
import { type Command, Option } from "commander";
import { ConfigError, SandboxError } from "../../errors.ts";
import { checkOutputDir } from "../../io/output-paths.ts";
import { graderCache, unitHandler, VerifierSessions } from "../../pipeline/work-units.ts";
import { openQueue } from "../../queue/open-queue.ts";
import { redact } from "../../queue/redis-url.ts";
import { BACKEND_NAMES, type BackendName, selectBackend } from "../../sandbox/select.ts";
import { UNITS_QUEUE } from "../../server/start-service.ts";
import { PackCatalog, PackSource } from "../../verify/pack/pack-catalog.ts";
import { sandboxJobs, serviceUrl } from "../options.ts";
import {
  addSharedServiceOptions,
  defaultPackCache,
  graderSettings,
  type SharedServiceFlags,
  tokenFrom,
  untilSignal,
} from "../service-settings.ts";

interface WorkerFlags extends SharedServiceFlags {
  queue: string;
  jobs: number;
  tasks?: string[];
  server?: string;
  cache?: string;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
}

export function registerWorker(program: Command): void {
  const command = program
    .command("worker")
    .description(
      "take verification and grading jobs from the Redis queue of `gagar serve --queue` (any number of machines)",
    )
    .requiredOption("--queue <url>", "redis://host:port[/db], the same as the service's")
    .option(
      "--jobs <n>",
      "jobs run at once (each verification is one sandbox)",
      sandboxJobs(),
      availableParallelism(),
    )
    .option(
      "--tasks <dir...>",
      "task packs on a path shared with the service; used when their content matches",
    )
    .option(
      "--server <url>",
      "the service (http://…), to fetch task packs by digest that --tasks does not hold",
      serviceUrl,
    )
    .option("--cache <dir>", "where fetched task packs are kept (default $XDG_CACHE_HOME/gagar/packs)")
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend").choices([...BACKEND_NAMES]).default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed (runs candidate code with NO isolation)");
  addSharedServiceOptions(command).action(async (flags: WorkerFlags) => {
    if (!flags.tasks && !flags.server)
      throw new ConfigError(
        "gagar worker needs a way to get the task packs its jobs name: --tasks DIR (packs on a path shared with the service) " +
          "and/or --server URL (the service, which hands out its packs); with neither it could verify nothing",
      );
    const cacheDir = flags.cache ?? defaultPackCache(process.env);
    checkOutputDir(cacheDir, flags.cache ? "--cache" : "the task pack cache (or give --cache)");
    const log = (line: string) => process.stderr.write(`gagar worker ${process.pid}: ${line}\n`);
    const token = tokenFrom(flags, process.env);
    const settings = graderSettings(flags.graderConfig, process.env);
    const sandbox = await selectBackend(flags.sandbox, {
      allowUnsandboxed: flags.allowUnsandboxed,
      warn: log,
    });
    const packs = new PackSource({
      shared: flags.tasks ? PackCatalog.load(flags.tasks) : undefined,
      cacheDir,
      fetchArchive: flags.server ? (digest) => fetchPack(flags.server!, digest, token) : undefined,
    });
    const units = await openQueue(UNITS_QUEUE, {
      url: flags.queue,
      prefix: flags.queuePrefix,
      lockMs: flags.lockSec * 1000,
    });
    const sessions = new VerifierSessions(sandbox, log);
    const signals = untilSignal(log);
    units.process(
      unitHandler({ packs, verifier: (policy) => sessions.get(policy), grader: graderCache(settings), log }),
      { concurrency: flags.jobs },
    );
    log(`taking jobs from ${redact(flags.queue)}, ${flags.jobs} at a time, ${sandbox.name} sandbox`);
    const signal = await signals.signal;
    log(`${signal}: finishing running jobs (up to ${flags.graceSec} s), handing back the rest`);
    await units.close({ graceMs: flags.graceSec * 1000 });
    await sessions.close();
    signals.dispose();
    log("stopped");
  });
}

/** `GET /v1/packs/{digest}` of the service, as a stream of the tar archive. */
async function fetchPack(server: string, digest: string, token: string | undefined): Promise<Readable> {
  const url = `${server.replace(/\/+$/, "")}/v1/packs/${digest}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch (e) {
    throw new SandboxError(
      `cannot fetch task pack ${digest.slice(0, 12)} from ${server}: ${(e as Error).message}`,
      true,
    );
  }
  if (!response.ok || !response.body) {
    const detail = await response.text().catch(() => "");
    throw new SandboxError(
      `fetching task pack ${digest.slice(0, 12)} from ${server}: HTTP ${response.status} ${detail.slice(0, 200)}`,
      response.status >= 500,
    );
  }
  return Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
}
