import { type ChildProcess, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { SandboxError } from "../errors.ts";
import { childrenOf, killQuietly, sleep } from "./processes.ts";
import { DEFAULT_STDIN_WAIT_MS } from "./run-spec.ts";
import type { RunResult } from "./types.ts";

export interface SuperviseOptions {
  file: string;
  args: string[];
  /** The wrapper chain's environment; empty for the sandboxes (bwrap's own /proc/1/environ is readable). */
  env: Record<string, string>;
  cwd?: string;
  /** Start in a new session and process group, so the group can be killed and no tty is inherited. */
  detached: boolean;
  timeoutMs: number;
  /** Written to the child's stdin once it resolves (the timeout starts then); otherwise stdin is closed. */
  stdin?: Promise<string>;
  /** How long to wait for `stdin` before killing the run. */
  stdinWaitMs?: number;
  onStdout?: (chunk: Buffer) => void;
  outputCapBytes: number;
  /** Kills everything the run started; the child must exit soon after. */
  terminate(child: ChildProcess, exited: Promise<void>): Promise<void>;
}

/** A run as the supervisor saw it: the backend-neutral result plus what only the wrapper chain knows. */
export interface Supervised extends Omit<RunResult, "replacedPaths"> {
  /** The run ended, or was killed for waiting too long, before its pending stdin arrived. */
  undelivered?: boolean;
  /** Pid of the spawned process (also its process group when detached). */
  pid: number | undefined;
  /** What the wrapper chain wrote to fd 3 (bwrap's --json-status-fd, or the "started" marker). */
  status: string;
}

const STATUS_CAP = 64 * 1024;
/** How long the pipes may stay open after the child exits (only an escaped daemon holds them longer). */
const DRAIN_MS = 500;

/**
 * Runs one wrapper chain with stdin closed (or fed from `stdin`), byte-capped stdout+stderr, a wall
 * timeout and a status pipe on fd 3. On the cap or the timeout it calls `terminate` once; it settles only
 * after the child exited and the pipes were drained (or cut off). With a pending `stdin` the chain
 * starts at once and the timeout (and durationMs) start when the input is delivered.
 */
export function supervise(options: SuperviseOptions): Promise<Supervised> {
  return new Promise((done, fail) => {
    let started = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(options.file, options.args, {
        stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe", "pipe"],
        env: options.env,
        cwd: options.cwd,
        detached: options.detached,
      });
    } catch (error) {
      fail(new SandboxError(`cannot start ${options.file}: ${(error as Error).message}`, false));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const status: Buffer[] = [];
    let outputBytes = 0;
    let statusBytes = 0;
    let timedOut = false;
    let cancelled = false;
    let undelivered = false;
    let outputCapped = false;
    let terminating: Promise<void> | undefined;
    let exitCode: number | null = null;
    let signal: NodeJS.Signals | null = null;
    let markExited: () => void = () => {};
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });

    const kill = () => {
      terminating ??= options.terminate(child, exited).catch(() => {
        if (child.pid !== undefined) killQuietly(child.pid);
      });
    };
    const collect = (stream: Readable | null, into: Buffer[]) => {
      stream?.on("data", (chunk: Buffer) => {
        if (outputCapped) return;
        const room = options.outputCapBytes - outputBytes;
        if (chunk.length > room) {
          if (room > 0) into.push(chunk.subarray(0, room));
          outputBytes = options.outputCapBytes;
          outputCapped = true;
          kill();
          return;
        }
        into.push(chunk);
        outputBytes += chunk.length;
      });
    };
    if (options.onStdout) child.stdout?.on("data", options.onStdout);
    collect(child.stdout, out);
    collect(child.stderr, err);
    const statusStream = child.stdio[3] as Readable | null;
    statusStream?.on("data", (chunk: Buffer) => {
      if (statusBytes >= STATUS_CAP) return;
      status.push(chunk);
      statusBytes += chunk.length;
    });
    let exitedYet = false;
    let timer: NodeJS.Timeout | undefined;
    const armTimeout = (ms: number) => {
      timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, ms);
    };
    if (options.stdin) {
      // The chain may be gone before the input comes (a failed setup): EPIPE is its exit's business.
      child.stdin?.on("error", () => {});
      // Waiting too long for the input is the caller's business, not a timeout of the program.
      timer = setTimeout(() => {
        undelivered = true;
        kill();
      }, options.stdinWaitMs ?? DEFAULT_STDIN_WAIT_MS);
      options.stdin.then(
        (input) => {
          // Too late: the chain is gone or being killed (its wait ran out). Not the input's fault.
          if (exitedYet || terminating) {
            undelivered = true;
            return;
          }
          clearTimeout(timer);
          started = performance.now();
          armTimeout(options.timeoutMs);
          child.stdin?.end(input);
        },
        () => {
          if (exitedYet) return;
          cancelled = true;
          kill();
        },
      );
    } else {
      armTimeout(options.timeoutMs);
    }

    const streams = [child.stdout, child.stderr, statusStream].filter((s): s is Readable => s !== null);
    const drained = Promise.all(
      streams.map(
        (s) =>
          new Promise<void>((resolve) =>
            s.readableEnded || s.destroyed ? resolve() : s.once("close", resolve),
          ),
      ),
    );

    child.once("error", (error) => {
      clearTimeout(timer);
      fail(new SandboxError(`cannot start ${options.file}: ${error.message}`, false));
    });
    child.once("exit", async (code, sig) => {
      exitCode = code;
      signal = sig;
      exitedYet = true;
      markExited();
      clearTimeout(timer);
      const cutOff = sleep(DRAIN_MS).then(() => "late" as const);
      if ((await Promise.race([drained, cutOff])) === "late") for (const s of streams) s.destroy();
      await terminating;
      done({
        pid: child.pid,
        exitCode,
        signal,
        timedOut,
        outputCapped,
        ...(cancelled ? { cancelled } : {}),
        ...(undelivered ? { undelivered } : {}),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        status: Buffer.concat(status).toString("utf8"),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

/**
 * Kill strategy for the namespace backends: SIGKILL the chain's child first (bwrap's pid-1 reaper, or
 * unshare's forked pid 1), which tears the pid namespace down while the outer process is still alive to
 * reap it at once; killing only the outer process leaves that child a zombie until the host's init
 * gets to it, which can take long. The outer process follows if it has not exited within a second.
 */
export async function terminateNamespace(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const kids = await childrenOf(pid);
  for (const kid of kids) killQuietly(kid);
  if (kids.length === 0) {
    killQuietly(pid);
    return;
  }
  const outcome = await Promise.race([
    exited.then(() => "exited" as const),
    sleep(1000).then(() => "slow" as const),
  ]);
  if (outcome === "slow") killQuietly(pid);
}
