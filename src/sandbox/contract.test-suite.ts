import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.ts";
import { sandboxBaseEnv } from "./env.ts";
import type { RunResult, RunSpec, SandboxBackend } from "./types.ts";

export interface ContractTarget {
  name: string;
  create: () => SandboxBackend;
  /**
   * Whether the backend claims isolation (namespaces, own uid, minimal root). The unsandboxed backend
   * does not, and is held only to the process-control, limit and I/O parts of the contract.
   */
  isolated: boolean;
  /** Whether code inside is kept from ptrace and the keyrings (bwrap's seccomp filter, seccomp.ts). */
  deniesPtrace?: boolean;
}

const nonce = () => randomBytes(6).toString("hex");
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Host pids whose command line contains `marker` (other than this test process). */
function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** A fresh workspace and output directory (0700, as mkdtemp makes them) for one case, removed after. */
async function withDirs<T>(
  fn: (dirs: { ws: string; out: string; scratch: string }) => Promise<T>,
): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), "gagar-contract-"));
  const ws = join(scratch, "ws");
  const out = join(scratch, "out");
  mkdirSync(ws);
  mkdirSync(out);
  try {
    return await fn({ ws, out, scratch });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The behaviour every sandbox backend must show on this host, as adversarial cases from
 * docs/security.md §3 (A: escape, B: resource exhaustion, F: persistence). Each case bounds its
 * own time and removes what it created.
 */
export function sandboxContract(target: ContractTarget): void {
  const backend = target.create();
  const sandboxOnly = target.isolated ? it : it.skip;
  const sh = (script: string, ws: string, extra: Partial<RunSpec> = {}): Promise<RunResult> =>
    backend.run({ argv: ["/bin/sh", "-c", script], workspace: ws, timeoutMs: 10_000, ...extra });

  describe(`${target.name} backend contract`, () => {
    it("reports the exit code, stdout and stderr", { timeout: 15_000 }, async () => {
      await withDirs(async ({ ws }) => {
        const result = await sh("echo out; echo err >&2; exit 7", ws);
        expect(result).toMatchObject({ exitCode: 7, signal: null, timedOut: false, outputCapped: false });
        expect(result.stdout).toBe("out\n");
        expect(result.stderr).toBe("err\n");
      });
    });

    it("gives the program exactly the allowlisted environment (A: host secrets)", {
      timeout: 15_000,
    }, async () => {
      const secret = `gagar-secret-${nonce()}`;
      process.env.GAGAR_CONTRACT_SECRET = secret;
      try {
        await withDirs(async ({ ws }) => {
          const env = { GAGAR_EXTRA: "two words" };
          const result = await backend.run({ argv: ["/usr/bin/env"], workspace: ws, env, timeoutMs: 10_000 });
          expect(result.exitCode).toBe(0);
          const seen = Object.fromEntries(
            result.stdout
              .trim()
              .split("\n")
              .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
          );
          expect(Object.keys(seen).sort()).toEqual(Object.keys({ ...sandboxBaseEnv, ...env }).sort());
          expect(seen).toMatchObject({
            PATH: "/usr/bin:/bin",
            CI: "1",
            LANG: "C.UTF-8",
            GAGAR_EXTRA: "two words",
          });
          expect(result.stdout).not.toContain(secret);
        });
      } finally {
        delete process.env.GAGAR_CONTRACT_SECRET;
      }
    });

    sandboxOnly(
      "shows no host environment or host paths in any /proc entry",
      { timeout: 15_000 },
      async () => {
        const secret = `gagar-secret-${nonce()}`;
        process.env.GAGAR_CONTRACT_SECRET = secret;
        try {
          await withDirs(async ({ ws }) => {
            const result = await sh("cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline | tr '\\0' '\\n'", ws);
            expect(result.stdout).not.toContain(secret);
            expect(result.stdout).not.toContain(ws);
            expect(result.stdout).not.toContain(`PWD=${process.cwd()}`);
          });
        } finally {
          delete process.env.GAGAR_CONTRACT_SECRET;
        }
      },
    );

    sandboxOnly("cannot read host files outside the workspace (A1, E)", { timeout: 15_000 }, async () => {
      const secret = `gagar-sentinel-${nonce()}`;
      const hostDir = mkdtempSync(join(tmpdir(), "gagar-sentinel-"));
      chmodSync(hostDir, 0o755);
      const hostFile = join(hostDir, "secret.txt");
      writeFileSync(hostFile, secret, { mode: 0o644 });
      const rootFile = `/root/.gagar-sentinel-${nonce()}`;
      writeFileSync(rootFile, secret, { mode: 0o644 });
      try {
        await withDirs(async ({ ws }) => {
          const result = await sh(`cat ${hostFile}; cat ${rootFile}; ls -a /root; cat /etc/shadow; ls /`, ws);
          expect(result.stdout + result.stderr).not.toContain(secret);
          expect(result.stdout).not.toMatch(/^(root|home|work|mnt|srv|var|opt)$/m);
        });
      } finally {
        rmSync(hostDir, { recursive: true, force: true });
        rmSync(rootFile, { force: true });
      }
    });

    sandboxOnly(
      "cannot write /usr, /etc, / or the host's /tmp (A1, F2, F3)",
      { timeout: 15_000 },
      async () => {
        const tag = `gagar-${nonce()}`;
        const hostDir = mkdtempSync(join(tmpdir(), "gagar-sentinel-"));
        chmodSync(hostDir, 0o777);
        try {
          await withDirs(async ({ ws }) => {
            const result = await sh(
              `touch /usr/${tag}; touch /etc/${tag}; touch /${tag}; mkdir -p ${hostDir} && touch ${hostDir}/${tag}`,
              ws,
            );
            expect(result.stderr).toMatch(/Read-only file system/);
            for (const path of [`/usr/${tag}`, `/etc/${tag}`, `/${tag}`])
              expect(existsSync(path)).toBe(false);
            expect(readdirSync(hostDir)).toEqual([]);
          });
        } finally {
          rmSync(hostDir, { recursive: true, force: true });
        }
      },
    );

    sandboxOnly(
      "has no network: a host loopback listener never accepts (A8)",
      { timeout: 15_000 },
      async () => {
        let accepted = 0;
        const server = createServer((socket) => {
          accepted++;
          socket.destroy();
        });
        await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
        const port = (server.address() as { port: number }).port;
        try {
          await withDirs(async ({ ws }) => {
            const connect = `import socket; s = socket.socket(); s.settimeout(2); s.connect(("127.0.0.1", ${port})); print("connected")`;
            const result = await backend.run({
              argv: ["python3", "-c", connect],
              workspace: ws,
              timeoutMs: 10_000,
            });
            expect(result.exitCode).not.toBe(0);
            expect(result.stdout).not.toContain("connected");
            const interfaces = await sh("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", ws);
            expect(interfaces.stdout.trim().split("\n")).toEqual(["lo"]);
          });
          expect(accepted).toBe(0);
        } finally {
          server.close();
        }
      },
    );

    it("starts ahead of a pending stdin, and times the run from its delivery", {
      timeout: 15_000,
    }, async () => {
      await withDirs(async ({ ws }) => {
        let seen = "";
        let waiting: () => void = () => {};
        const ready = new Promise<void>((resolve) => {
          waiting = resolve;
        });
        const onStdout = (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes("waiting\n")) waiting();
        };
        // Waiting longer than timeoutMs before the input comes must not count against the run.
        const input = ready.then(() => sleep(1500)).then(() => "hello\n");
        const result = await sh('echo waiting; read line; echo "got:$line"', ws, {
          stdin: input,
          timeoutMs: 1000,
          onStdout,
        });
        expect(result).toMatchObject({ exitCode: 0, timedOut: false });
        expect(result.stdout).toBe("waiting\ngot:hello\n");
      });
    });

    it("fails as the sandbox's fault, retryably, when the input comes after the run stopped waiting", {
      timeout: 15_000,
    }, async () => {
      await withDirs(async ({ ws }) => {
        const input = sleep(1500).then(() => "late\n");
        const run = sh("read line; echo got", ws, { stdin: input, stdinWaitMs: 300 });
        await expect(run).rejects.toBeInstanceOf(SandboxError);
        await expect(run).rejects.toMatchObject({ retryable: true });
      });
    });

    it("cancels a run whose pending stdin is rejected, leaving nothing behind", {
      timeout: 15_000,
    }, async () => {
      const tag = `gagar-cancel-${nonce()}`;
      await withDirs(async ({ ws }) => {
        const input = sleep(300).then(() => Promise.reject(new Error("cancelled")));
        const result = await sh(`read line; echo ${tag}-ran`, ws, { stdin: input });
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).not.toContain(`${tag}-ran`);
        expect(hostProcessesWith(tag)).toEqual([]);
      });
    });

    (target.deniesPtrace ? it : it.skip)(
      "keeps code inside from tracing the sandbox's pid 1 or a sibling, and from the keyrings",
      { timeout: 15_000 },
      async () => {
        await withDirs(async ({ ws }) => {
          // As the run uid, bwrap's pid 1 and any sibling share our uid: only the filter stops ptrace.
          const probe = [
            "import ctypes, os, subprocess",
            "libc = ctypes.CDLL(None, use_errno=True)",
            "sibling = subprocess.Popen(['sleep', '5'])",
            "for pid in (1, sibling.pid):",
            "    print(libc.ptrace(16, pid, 0, 0), ctypes.get_errno())",
            "print(libc.syscall(248, b'user', b'gagar', b'v', 1, -4), ctypes.get_errno())",
            "sibling.kill()",
          ].join("\n");
          const result = await backend.run({
            argv: ["python3", "-c", probe],
            workspace: ws,
            timeoutMs: 10_000,
          });
          expect(result.exitCode).toBe(0);
          // -1 with EPERM (1) for PTRACE_ATTACH to pid 1, to the sibling, and for add_key.
          expect(result.stdout.trim().split("\n")).toEqual(["-1 1", "-1 1", "-1 1"]);
        });
      },
    );

    it("kills a SIGTERM-ignoring program at the timeout (B4)", { timeout: 15_000 }, async () => {
      await withDirs(async ({ ws }) => {
        const started = Date.now();
        const result = await sh("trap '' TERM; while :; do :; done", ws, { timeoutMs: 1000 });
        expect(Date.now() - started).toBeLessThan(1000 + 2000);
        expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
      });
    });

    sandboxOnly(
      "leaves no daemonized, double-forked, SIGTERM-ignoring child behind (F1)",
      { timeout: 15_000 },
      async () => {
        const tag = `gagar-daemon-${nonce()}`;
        await withDirs(async ({ ws }) => {
          writeFileSync(
            join(ws, "daemon.sh"),
            [
              "trap '' TERM",
              `( setsid sh -c 'trap "" TERM; while :; do date +%s%N > alive; sleep 0.1; done' ${tag}-inner & )`,
              "while :; do sleep 0.1; done",
            ].join("\n"),
          );
          const started = Date.now();
          const result = await backend.run({
            argv: ["/bin/sh", "daemon.sh", tag],
            workspace: ws,
            timeoutMs: 1500,
          });
          expect(Date.now() - started).toBeLessThan(1500 + 2000);
          expect(result.timedOut).toBe(true);
          expect(hostProcessesWith(tag)).toEqual([]);
          const before = readFileSync(join(ws, "alive"), "utf8");
          await sleep(400);
          expect(readFileSync(join(ws, "alive"), "utf8")).toBe(before);
        });
      },
    );

    sandboxOnly("bounds a fork bomb while the host keeps forking (B1, B8)", { timeout: 20_000 }, async () => {
      const tag = `gagar-bomb-${nonce()}`;
      await withDirs(async ({ ws }) => {
        const started = Date.now();
        const running = sh(`b() { b | b & }; b; while :; do sleep 0.2; done # ${tag}`, ws, {
          timeoutMs: 2500,
          outputCapBytes: 64 * 1024,
          limits: { processes: 64 },
        });
        await sleep(1000);
        expect(spawnSync("/bin/true").status).toBe(0);
        const result = await running;
        expect(Date.now() - started).toBeLessThan(2500 + 2000);
        // Bounded either way: killed at the timeout or output cap, or the shell gave up when forks
        // kept failing at RLIMIT_NPROC (seen under load). It never ends as a success.
        expect(result.timedOut || result.outputCapped || result.exitCode !== 0).toBe(true);
        expect(hostProcessesWith(tag)).toEqual([]);
      });
    });

    it("fails a memory bomb at the address-space limit (B2)", { timeout: 15_000 }, async () => {
      await withDirs(async ({ ws }) => {
        const result = await backend.run({
          argv: ["python3", "-c", "b = bytearray(2 * 1024 ** 3)"],
          workspace: ws,
          timeoutMs: 10_000,
          limits: { memoryBytes: 256 * 2 ** 20 },
        });
        expect(result.exitCode).not.toBe(0);
        expect(result.timedOut).toBe(false);
        expect(result.stderr).toContain("MemoryError");
      });
    });

    sandboxOnly(
      "makes sandboxed processes the OOM killer's first choice and leaves host processes alone (B3)",
      {
        timeout: 15_000,
      },
      async () => {
        const hostInit = readFileSync("/proc/1/oom_score_adj", "utf8");
        const own = readFileSync("/proc/self/oom_score_adj", "utf8");
        await withDirs(async ({ ws }) => {
          const result = await backend.run({
            argv: ["cat", "/proc/self/oom_score_adj"],
            workspace: ws,
            timeoutMs: 10_000,
          });
          expect(result.stdout.trim()).toBe("1000");
        });
        expect(readFileSync("/proc/1/oom_score_adj", "utf8")).toBe(hostInit);
        expect(readFileSync("/proc/self/oom_score_adj", "utf8")).toBe(own);
      },
    );

    it("caps huge output, with and without newlines (B5)", { timeout: 20_000 }, async () => {
      await withDirs(async ({ ws }) => {
        for (const argv of [
          ["yes", "gagar"],
          ["/bin/sh", "-c", "tr '\\0' a < /dev/zero >&2"],
        ]) {
          const started = Date.now();
          const result = await backend.run({ argv, workspace: ws, timeoutMs: 8000, outputCapBytes: 100_000 });
          expect(Date.now() - started).toBeLessThan(5000);
          expect(result).toMatchObject({ outputCapped: true, timedOut: false, exitCode: null });
          expect(result.stdout.length + result.stderr.length).toBeLessThanOrEqual(100_000);
          expect(result.stdout.length + result.stderr.length).toBeGreaterThan(50_000);
        }
      });
    });

    it("stops a file at the file-size limit (B6)", { timeout: 15_000 }, async () => {
      await withDirs(async ({ ws }) => {
        const result = await sh("head -c 2097152 /dev/zero > big", ws, {
          limits: { fileSizeBytes: 2 ** 20 },
        });
        expect(result.exitCode).not.toBe(0);
        expect(statSync(join(ws, "big")).size).toBeLessThanOrEqual(2 ** 20);
      });
    });

    it("sets every requested rlimit, soft and hard, so the program cannot raise it", {
      timeout: 15_000,
    }, async () => {
      await withDirs(async ({ ws }) => {
        const limits = {
          processes: 97,
          memoryBytes: 3 * 2 ** 30,
          fileSizeBytes: 5 * 2 ** 20,
          openFiles: 333,
          cpuSeconds: 41,
        };
        const result = await sh("cat /proc/self/limits", ws, { limits });
        expect(result.exitCode).toBe(0);
        const row = (name: string) => {
          const line = result.stdout.split("\n").find((l) => l.startsWith(name));
          return line?.slice(name.length).trim().split(/\s+/).slice(0, 2);
        };
        expect(row("Max processes")).toEqual(["97", "97"]);
        expect(row("Max address space")).toEqual([String(3 * 2 ** 30), String(3 * 2 ** 30)]);
        expect(row("Max file size")).toEqual([String(5 * 2 ** 20), String(5 * 2 ** 20)]);
        expect(row("Max open files")).toEqual(["333", "333"]);
        expect(row("Max cpu time")).toEqual(["41", "41"]);
        expect(row("Max core file size")).toEqual(["0", "0"]);
      });
    });

    sandboxOnly("caps the private /tmp (B6)", { timeout: 15_000 }, async () => {
      await withDirs(async ({ ws }) => {
        const result = await sh("head -c 16777216 /dev/zero > /tmp/fill", ws, {
          limits: { tmpBytes: 8 * 2 ** 20 },
        });
        expect(result.exitCode).not.toBe(0);
        expect(result.stderr).toMatch(/No space left on device/);
      });
    });

    it("lays read-only binds over the workspace and keeps /out writable (A6, C)", {
      timeout: 15_000,
    }, async () => {
      await withDirs(async ({ ws, out, scratch }) => {
        const tag = `hidden-${nonce()}`;
        const hidden = join(scratch, "hidden");
        mkdirSync(join(hidden, "fixtures"), { recursive: true });
        chmodSync(join(hidden, "fixtures"), 0o777);
        writeFileSync(join(hidden, "test_hidden.py"), tag, { mode: 0o666 });
        writeFileSync(join(hidden, "fixtures", "data.txt"), tag, { mode: 0o666 });
        chmodSync(join(hidden, "test_hidden.py"), 0o666);
        chmodSync(join(hidden, "fixtures", "data.txt"), 0o666);
        // A candidate replaced tests/ with a symlink: the hidden test must still land in the workspace.
        mkdirSync(join(scratch, "elsewhere"));
        symlinkSync(join(scratch, "elsewhere"), join(ws, "tests"));
        const result = await backend.run({
          argv: [
            "/bin/sh",
            "-c",
            [
              "cat tests/test_hidden.py; echo",
              "echo tamper >> tests/test_hidden.py",
              "echo tamper > fixtures/data.txt",
              "touch fixtures/new",
              "echo report > /out/report.txt",
            ].join("; "),
          ],
          workspace: ws,
          outputDir: out,
          readOnly: [
            { source: join(hidden, "test_hidden.py"), target: "/workspace/tests/test_hidden.py" },
            { source: join(hidden, "fixtures"), target: "/workspace/fixtures" },
          ],
          timeoutMs: 10_000,
        });
        expect(result.stdout.split("\n")[0]).toBe(tag);
        expect(result.replacedPaths).toEqual(["/workspace/tests"]);
        expect(readdirSync(join(scratch, "elsewhere"))).toEqual([]);
        expect(readFileSync(join(out, "report.txt"), "utf8")).toBe("report\n");
        if (target.isolated) {
          expect(result.stderr).toMatch(/Read-only file system/);
          expect(readFileSync(join(hidden, "test_hidden.py"), "utf8")).toBe(tag);
          expect(readFileSync(join(hidden, "fixtures", "data.txt"), "utf8")).toBe(tag);
          expect(existsSync(join(hidden, "fixtures", "new"))).toBe(false);
        }
      });
    });

    it("runs 20 times back to back without spurious failures (B9)", { timeout: 30_000 }, async () => {
      await withDirs(async ({ ws }) => {
        for (let i = 0; i < 20; i++) {
          const result = await sh(`echo run-${i}`, ws);
          expect(result).toMatchObject({ exitCode: 0, stdout: `run-${i}\n` });
        }
      });
    });

    sandboxOnly("gives concurrent runs distinct unprivileged uids", { timeout: 20_000 }, async () => {
      await withDirs(async ({ scratch }) => {
        const runs = [0, 1, 2, 3].map((i) => {
          const ws = join(scratch, `ws-${i}`);
          mkdirSync(ws);
          return sh("id -u; sleep 0.3", ws);
        });
        const uids = (await Promise.all(runs)).map((r) => r.stdout.trim());
        expect(new Set(uids).size).toBe(4);
        for (const uid of uids) expect(Number(uid)).toBeGreaterThanOrEqual(1000);
      });
    });

    sandboxOnly(
      "shows only the sandbox's own processes and no risky devices (A10, A12)",
      { timeout: 15_000 },
      async () => {
        await withDirs(async ({ ws }) => {
          const result = await sh("ls /proc | grep -c '^[0-9][0-9]*$'; ls /dev", ws);
          const [count, ...devices] = result.stdout.trim().split("\n");
          expect(Number(count)).toBeLessThan(10);
          for (const device of ["kvm", "fuse", "loop0", "loop-control", "sda", "vda", "mem"]) {
            expect(devices).not.toContain(device);
          }
        });
      },
    );

    sandboxOnly(
      "has no capabilities and cannot create user namespaces (A11)",
      { timeout: 15_000 },
      async () => {
        await withDirs(async ({ ws }) => {
          const result = await sh(
            "unshare -r /bin/true; echo unshare=$?; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status",
            ws,
          );
          expect(result.stdout).toMatch(/^unshare=[1-9]/m);
          expect(result.stdout).toMatch(/^CapEff:\s+0+$/m);
          expect(result.stdout).toMatch(/^CapBnd:\s+0+$/m);
          expect(result.stdout).toMatch(/^NoNewPrivs:\s+1$/m);
        });
      },
    );

    it("reports a program that cannot start as a SandboxError, not as the candidate's exit", {
      timeout: 15_000,
    }, async () => {
      await withDirs(async ({ ws }) => {
        const run = backend.run({ argv: ["/nonexistent/program"], workspace: ws, timeoutMs: 10_000 });
        await expect(run).rejects.toBeInstanceOf(SandboxError);
        await expect(run).rejects.toMatchObject({ retryable: false });
      });
    });
  });
}
