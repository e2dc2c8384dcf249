import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A redis-server of the test's own, on a free loopback port, without persistence. */
export interface TestRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` (the Debian package; `.ci/run` installs it) on a free loopback port and waits
 * until it answers PING. Stop it with `stop()`, which ends it by its pid.
 */
export async function startRedis(): Promise<TestRedis> {
  if (spawnSync("redis-server", ["--version"]).error)
    throw new Error(
      "redis-server is not installed: the queue and service tests need it (apt-get install -y redis-server)",
    );
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "gagar-redis-"));
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const up = await Promise.race([waitForPong(port), exited.then(() => false)]);
    if (up) {
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        pid: child.pid!,
        stop: () => stopChild(child, exited).finally(() => rmSync(dir, { recursive: true, force: true })),
      };
    }
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    // Another process took the port between our probe and redis' bind: try another.
    if (attempt >= 4) throw new Error("redis-server did not start on a free loopback port");
  }
}

/** A loopback port nobody listens on at the moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPong(port: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ping(port)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    socket.setTimeout(1000, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      reply += d.toString();
      if (reply.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(reply.startsWith("+PONG")));
    socket.on("error", () => {});
  });
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  process.kill(child.pid!, "SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}
