import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** A `gagar` command running as its own process, with its stderr kept line by line. */
export interface GagarProcess {
  child: ChildProcess;
  pid: number;
  /** Every stderr line so far. */
  lines: string[];
  /** Resolves with the first line matching `pattern`, among the lines from index `from` on (default all). */
  waitForLine(pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (by pid) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startGagar(args: string[], env: Record<string, string> = {}): GagarProcess {
  const child = spawn(process.execPath, [resolve(ROOT, "bin/gagar.js"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines: string[] = [];
  const watchers = new Set<() => void>();
  let partial = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of watchers) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once("exit", (code, signal) => {
      for (const w of watchers) w();
      done({ code, signal });
    }),
  );
  return {
    child,
    pid: child.pid!,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 60_000, from = 0) {
      return new Promise((resolveLine, reject) => {
        const check = () => {
          const line = lines.slice(from).find((l) => pattern.test(l));
          if (line !== undefined) {
            finish();
            resolveLine(line);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            finish();
            reject(new Error(`gagar ${args[0]} exited before printing ${pattern}:\n${lines.join("\n")}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(`gagar ${args[0]} printed no ${pattern} in ${timeoutMs} ms:\n${lines.join("\n")}`),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          watchers.delete(check);
        };
        watchers.add(check);
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      return exited;
    },
  };
}

/** Starts `gagar serve` with `args` and resolves with it and its URL once it listens. */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ serve: GagarProcess; url: string }> {
  const serve = startGagar(["serve", ...args], env);
  const line = await serve.waitForLine(/listening on http/, 120_000);
  return { serve, url: /listening on (http:\/\/\S+)/.exec(line)![1]! };
}
