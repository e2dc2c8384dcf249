import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, Option } from "commander";
import { DEFAULTS } from "../../config/defaults.ts";
import { CreatedPaths, checkOutputDir, SQLITE_SIDECARS } from "../../io/output-paths.ts";
import { STORE_FILE } from "../../pipeline/run-layout.ts";
import { BACKEND_NAMES, type BackendName } from "../../sandbox/select.ts";
import { startService } from "../../server/start-service.ts";
import { GAGAR_VERSION } from "../../version.ts";
import { integerWithin, numberIn, portNumber, sandboxJobs } from "../options.ts";
import {
  addSharedServiceOptions,
  graderSettings,
  type SharedServiceFlags,
  tokenFrom,
  untilSignal,
} from "../service-settings.ts";

interface ServeFlags extends SharedServiceFlags {
  host: string;
  port: number;
  queue?: string;
  tasks?: string[];
  out: string;
  jobs: number;
  sandbox: BackendName;
  allowUnsandboxed?: boolean;
  protected: "strip" | "reject";
  maxQueued: number;
  maxInflight: number;
  bodyLimitMb: number;
  probes: boolean;
}

/** The bundled example pack: `gagar serve` with no flags serves it. */
const EXAMPLE_TASKS = fileURLToPath(new URL("../../../examples/tasks", import.meta.url));

export function registerServe(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "HTTP service for trainers: /v1/advantages, /v1/verify, /v1/grade, /v1/steps (OpenAPI at /openapi.json)",
    )
    .option("--host <host>", "address to listen on; anything but loopback needs a token", "127.0.0.1")
    .option("--port <n>", "port, 0 to 65535 (0: any free one)", portNumber, 8765)
    .option(
      "--queue <url>",
      "redis://host:port[/db]: queue jobs in Redis for `gagar worker` processes; without it jobs run here",
    )
    .option("--tasks <dir...>", "task pack folders (default: the bundled example pack)")
    .option(
      "--out <dir>",
      `where the run store (${STORE_FILE}) goes; every /v1/steps is recorded there`,
      "gagar-serve",
    )
    .option(
      "--jobs <n>",
      "verifications run at once by this process (without --queue; at most 4 per CPU)",
      sandboxJobs(),
      2,
    )
    .addOption(
      new Option("--sandbox <backend>", "sandbox backend").choices([...BACKEND_NAMES]).default("auto"),
    )
    .option("--allow-unsandboxed", "permit --sandbox unsandboxed (runs candidate code with NO isolation)")
    .addOption(
      new Option(
        "--protected <policy>",
        "patches touching tests or runner configs: strip those files, or reject",
      )
        .choices(["strip", "reject"])
        .default("strip"),
    )
    .option(
      "--max-queued <n>",
      "work units queued at most; beyond it requests get 429",
      integerWithin(1, "queuedUnits"),
      10_000,
    )
    .option(
      "--max-inflight <n>",
      "POST requests handled at once; beyond it 429",
      integerWithin(1, "inflightRequests"),
      64,
    )
    .option("--body-limit-mb <n>", "largest request body", numberIn(0, 4096), 64)
    .option(
      "--no-probes",
      `no behavioural probes before grading (default: on for groups whose task pack is served, ${DEFAULTS.probes.budgetSec} s per group; docs/probes.md)`,
    );
  addSharedServiceOptions(command).action(serve);
}

/** Starts the service on the flags, then runs until a signal asks it to finish its work and stop. */
async function serve(flags: ServeFlags): Promise<void> {
  const log = (line: string) => process.stderr.write(`gagar serve: ${line}\n`);
  const token = tokenFrom(flags, process.env);
  const settings = graderSettings(flags.graderConfig, process.env);
  checkOutputDir(flags.out, "--out");
  // A service that cannot start (a port in use, a bad task pack, Redis away) leaves no folder or store.
  const created = new CreatedPaths();
  created.folder(flags.out);
  const storeFile = created.fileToCreate(join(flags.out, STORE_FILE), SQLITE_SIDECARS);
  const service = await startService({
    host: flags.host,
    port: flags.port,
    token,
    queueUrl: flags.queue,
    queuePrefix: flags.queuePrefix,
    lockMs: flags.lockSec * 1000,
    tasks: flags.tasks ?? [EXAMPLE_TASKS],
    storeFile,
    jobs: flags.jobs,
    sandbox: flags.sandbox,
    allowUnsandboxed: flags.allowUnsandboxed,
    protectedPolicy: flags.protected,
    limits: {
      maxQueued: flags.maxQueued,
      maxInflight: flags.maxInflight,
      bodyLimitBytes: Math.round(flags.bodyLimitMb * 1024 * 1024),
    },
    graderSettings: settings,
    ...(flags.probes && { probes: { budgetSec: DEFAULTS.probes.budgetSec } }),
    version: GAGAR_VERSION,
    log,
  }).catch((e) => {
    created.discard();
    throw e;
  });
  created.keep();
  const signals = untilSignal(log);
  log(
    `listening on ${service.url} · jobs ${flags.queue ? "queued in Redis for gagar worker" : `run here, ${flags.jobs} at a time`}` +
      ` · store ${storeFile} (run ${service.runId})`,
  );
  const signal = await signals.signal;
  log(`${signal}: finishing (up to ${flags.graceSec} s), then stopping`);
  await service.close(flags.graceSec * 1000);
  signals.dispose();
  log("stopped");
}
