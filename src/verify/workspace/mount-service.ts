import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { findTool } from "../../sandbox/host-tools.ts";

const SCRIPT = fileURLToPath(new URL("./mount-service.py", import.meta.url));

export type MountRequest =
  | { op: "tmpfs"; target: string; size: number; inodes: number }
  | { op: "overlay"; target: string; lower: string; upper: string; work: string }
  | { op: "umount"; targets: string[] }
  | { op: "idmap"; source: string; target: string; uid: number };

/** The service could not be started or has died: the caller falls back to util-linux. */
export class MountServiceGone extends Error {}

/**
 * The client of mount-service.py: one long-lived root helper that makes and removes the verifier's own
 * mounts with system calls, instead of one util-linux process per mount (an exec each, during
 * which Node's spawn blocks the event loop). Requests are answered in order. The helper does not keep
 * the process alive while idle, and dies with it.
 */
export class MountService {
  private child: ChildProcess | undefined;
  private gone: string | undefined;
  private readonly pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private buffered = "";

  request(req: MountRequest): Promise<void> {
    if (this.gone !== undefined) return Promise.reject(new MountServiceGone(this.gone));
    const child = this.child ?? this.start();
    if (!child) return Promise.reject(new MountServiceGone(this.gone ?? "not started"));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.setRef(true);
      child.stdin!.write(`${JSON.stringify(req)}\n`);
    });
  }

  /** Ends the helper (it also ends by itself when this process exits). */
  stop(): void {
    this.fail("stopped");
  }

  private start(): ChildProcess | undefined {
    const python = findTool("python3");
    if (!python) {
      this.gone = "python3 not found";
      return undefined;
    }
    const child = spawn(python, ["-I", "-S", SCRIPT], { env: {}, stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.stdout!.on("data", (chunk: Buffer) => this.onData(chunk));
    child.stdin!.on("error", () => {});
    child.once("error", (e) => this.fail(`mount service: ${e.message}`));
    child.once("exit", (code, signal) =>
      this.fail(`mount service exited (${signal ?? code})${stderr ? `: ${stderr.trim()}` : ""}`),
    );
    this.setRef(false);
    return child;
  }

  private onData(chunk: Buffer): void {
    this.buffered += chunk.toString("utf8");
    for (let nl = this.buffered.indexOf("\n"); nl >= 0; nl = this.buffered.indexOf("\n")) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const waiter = this.pending.shift();
      if (!waiter) continue;
      let answer: { ok?: unknown; error?: unknown };
      try {
        answer = JSON.parse(line) as typeof answer;
      } catch {
        answer = { ok: false, error: `unreadable answer ${JSON.stringify(line.slice(0, 200))}` };
      }
      if (answer.ok === true) waiter.resolve();
      else waiter.reject(new Error(String(answer.error ?? "unknown error")));
    }
    if (this.pending.length === 0) this.setRef(false);
  }

  private fail(why: string): void {
    if (this.gone === undefined) this.gone = why;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const waiter of this.pending.splice(0)) waiter.reject(new MountServiceGone(why));
  }

  /** Keeps this process alive only while an answer is awaited. */
  private setRef(on: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as ({
      ref?(): void;
      unref?(): void;
    } | null)[]) {
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

let shared: MountService | undefined;

/** The process-wide mount service, started on first use. */
export function mountService(): MountService {
  shared ??= new MountService();
  return shared;
}
