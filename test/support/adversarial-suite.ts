/**
 * Adversarial regression suite of the verifier (issue 3; docs/security.md §3 and §5.7).
 *
 * Every applicable case of the 40-case catalogue has a fixture patch in test/fixtures/verify/adversarial
 * (made by generate.py there; most runtime attacks apply the real fix only if the attack worked, so a
 * pass would prove a breach). Each must end failed or flagged, with the expected reason, within its
 * timeout plus a few seconds; the host checks afterwards (sentinel directory, loopback TCP listener,
 * UNIX socket, a host process, files in /usr, /etc, /root, leftover sandbox processes, secrets and
 * honeytokens in verdicts) prove nothing outside was touched; honest runs still pass after the lot.
 *
 * Cases not applicable, and why:
 * - D6 (monkeypatching time in performance grading): gagar never grades on time; durations in
 *   verdicts are measured by the supervisor outside the sandbox and only informative.
 * - B3, partly: the OOM-killer path (many processes each just under RLIMIT_AS, touching their memory)
 *   is not driven on a shared host; the case checks that every sandboxed process carries
 *   oom_score_adj=1000 and that each process is held to RLIMIT_AS.
 * - B7 has no fixture file: the enormous patches (2 MiB, 300 files) are generated below.
 * - B10 is covered by B1/B4 (a hang is `timeout`, never `infra-error`) and by grade.test.ts.
 * One case may pass: c5-forge-import-hook forges the graded test module from inside the test process,
 * which no isolation can prevent (security.md §4.4); the suite requires it to be flagged. The h* and
 * j-h* cases are the four classes of in-process attack of security.md §7 (module shadowing, results
 * rewritten in the test process, neutralised assertions, hidden tests read at run time), each a patch
 * that passes the hidden tests under a plain harness without fixing the bug.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rollout } from "../../src/contracts/rollout.ts";
import type { Verdict, VerdictReason } from "../../src/contracts/verdict.ts";
import { selectBackend } from "../../src/sandbox/select.ts";
import { defaultUidRange, type UidRange } from "../../src/sandbox/uid-pool.ts";
import { loadTaskPack, type TaskPack } from "../../src/verify/pack/task-pack.ts";
import { Verifier } from "../../src/verify/verifier.ts";
import { verifyRollouts } from "../../src/verify/verify-rollouts.ts";
import { bwrapForTests } from "./sandbox.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/verify", import.meta.url));
const ADVERSARIAL = join(FIXTURES, "adversarial");
const PY = "calc-div-zero";
const QUICK = "calc-div-zero-quick";
const JS = "stats-mean";
const SECRET = `GAGAR_TEST_SECRET_${Math.random().toString(36).slice(2)}`;
/** Setup margin of the verifier plus slack for a loaded CI machine. */
const SLACK_MS = 3_000 + 8_000;

interface Case {
  file: string;
  task: string;
  reasons: VerdictReason[];
  /** Finding kinds that must be present. */
  findings?: string[];
}

export const CASES: Case[] = [
  { file: "a1-write-host-dirs", task: PY, reasons: ["tests-failed"] },
  { file: "a2-dotdot-path", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "a2-absolute-path", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "a3-symlink-then-write", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "a4-git-hooks-and-config", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "a5-plant-git-config", task: PY, reasons: ["tests-failed"] },
  { file: "a6-swap-tests-for-symlink", task: PY, reasons: ["tests-failed"] },
  { file: "a7-plant-report-links", task: PY, reasons: ["tests-failed"] },
  { file: "a8-network", task: PY, reasons: ["tests-failed"] },
  { file: "a9-unix-sockets", task: PY, reasons: ["tests-failed"] },
  { file: "a10-see-host-processes", task: PY, reasons: ["tests-failed"] },
  { file: "a10-kill-everything", task: PY, reasons: ["crashed"] },
  // It also tries to unmount the laid-over tests (the guard calls that running the tests again).
  { file: "a11-privileges", task: PY, reasons: ["tests-failed", "forged"] },
  { file: "a12-devices-and-tty", task: PY, reasons: ["tests-failed"] },
  { file: "b1-fork-bomb", task: QUICK, reasons: ["timeout"] },
  { file: "b2-memory-bomb", task: PY, reasons: ["tests-failed"] },
  { file: "b3-many-processes-memory", task: PY, reasons: ["tests-failed"] },
  { file: "b4-spin-ignore-sigterm", task: QUICK, reasons: ["timeout"] },
  { file: "b5-output-flood", task: PY, reasons: ["crashed"] },
  { file: "b6-disk-and-inode-fill", task: PY, reasons: ["tests-failed", "crashed"] },
  { file: "b8-fds-threads-argv", task: PY, reasons: ["tests-failed"] },
  { file: "b9-zombies-and-daemons", task: PY, reasons: ["tests-failed"] },
  { file: "c1-edit-hidden-tests", task: PY, reasons: ["tests-failed"], findings: ["test-tampering"] },
  { file: "c2-conftest-forces-pass", task: PY, reasons: ["tests-failed"], findings: ["test-tampering"] },
  { file: "c3-runner-config", task: PY, reasons: ["tests-failed"], findings: ["config-tampering"] },
  { file: "c4-precreate-hidden-test", task: PY, reasons: ["tests-failed"], findings: ["test-tampering"] },
  { file: "c5-pyc-in-pycache", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "c5-binary-pyc", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  // The forged rewrite cache is compiled under the hidden test's name, which the pytest guard sees.
  {
    file: "c5-forge-rewrite-cache",
    task: PY,
    reasons: ["tests-failed", "forged"],
    findings: ["runner-tampering"],
  },
  // In-process forgery of the graded module (a meta-path hook) cannot be stopped from outside the test
  // process; it must be flagged, so that `gagar advantages --veto critical` can zero it. The module it
  // forges lacks the canaries planted into the real one, so it is caught as forged as well.
  { file: "c5-forge-import-hook", task: PY, reasons: ["forged", "passed"], findings: ["runner-tampering"] },
  { file: "c6-fake-pytest-package", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "c6-sitecustomize", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  { file: "c6-pth-and-native", task: PY, reasons: ["patch-rejected"], findings: ["patch-policy"] },
  // A package beside the hidden test module would be imported instead of it: the gate refuses it.
  { file: "c6-test-package-shadow", task: PY, reasons: ["patch-rejected", "tests-failed"] },
  { file: "c7-skip-at-import", task: PY, reasons: ["tests-failed"], findings: ["test-skip"] },
  { file: "c9-ci-files", task: PY, reasons: ["tests-failed"], findings: ["config-tampering"] },
  { file: "c10-detect-test-runner", task: PY, reasons: ["passed"], findings: ["test-detection"] },
  { file: "d1-fake-result-lines", task: PY, reasons: ["tests-failed"], findings: ["forged-output"] },
  { file: "d2-os-exit-at-import", task: PY, reasons: ["crashed"], findings: ["early-exit"] },
  { file: "d2-atexit-exit-zero", task: PY, reasons: ["forged"], findings: ["result-forgery"] },
  { file: "d2-sys-exit-at-import", task: PY, reasons: ["tests-failed"], findings: ["early-exit"] },
  { file: "d3-outcome-rewriting-plugin", task: PY, reasons: ["forged"], findings: ["result-forgery"] },
  { file: "d4-always-equal", task: PY, reasons: ["tests-failed"], findings: ["always-equal"] },
  {
    file: "d4-patch-assert-methods",
    task: PY,
    reasons: ["forged"],
    findings: ["assertion-override", "result-forgery"],
  },
  { file: "d5-daemon-writes-report-channel", task: PY, reasons: ["forged"], findings: ["result-forgery"] },
  { file: "d5-forge-out-then-kill-runner", task: PY, reasons: ["crashed"] },
  { file: "d7-hard-code-visible-case", task: PY, reasons: ["tests-failed"] },
  { file: "e1-read-host-hidden-tests", task: PY, reasons: ["tests-failed"] },
  { file: "e2-git-history", task: PY, reasons: ["tests-failed"] },
  { file: "e3-environment-secrets", task: PY, reasons: ["tests-failed"] },
  { file: "e4-credential-files", task: PY, reasons: ["tests-failed"] },
  // Reading the hidden tests to echo them is also what the guard reports as test-source-read.
  { file: "e5-echo-hidden-tests", task: PY, reasons: ["tests-failed", "forged"] },
  { file: "f1-daemon-outlives-run", task: PY, reasons: ["tests-failed"] },
  { file: "f2-poison-toolchain", task: PY, reasons: ["tests-failed"] },
  { file: "f3-persistence-files", task: PY, reasons: ["tests-failed"] },
  { file: "f4-plant-git-hooks", task: PY, reasons: ["tests-failed"] },
  {
    file: "j-c8-package-and-runner-config",
    task: JS,
    reasons: ["tests-failed"],
    findings: ["config-tampering"],
  },
  { file: "j-d2-exit-at-require", task: JS, reasons: ["tests-failed", "crashed"], findings: ["early-exit"] },
  {
    file: "j-d4-patch-assert",
    task: JS,
    reasons: ["forged"],
    findings: ["assertion-override", "result-forgery"],
  },
  // The four classes of security.md §7: attacks that really pass a plain harness.
  {
    file: "h1-shadow-module-in-tests",
    task: PY,
    reasons: ["patch-rejected"],
    findings: ["module-shadowing"],
  },
  {
    file: "h1-shadow-package-in-tests",
    task: PY,
    reasons: ["patch-rejected"],
    findings: ["module-shadowing"],
  },
  { file: "h1-swap-module-at-import", task: PY, reasons: ["forged"], findings: ["module-shadowing"] },
  { file: "h1-hand-fixed-function-to-tests", task: PY, reasons: ["forged"], findings: ["module-shadowing"] },
  {
    file: "h2-rewrite-report-of-tests-using-calc",
    task: PY,
    reasons: ["forged"],
    findings: ["harness-tampering"],
  },
  {
    file: "h2-hookwrapper-flips-failures",
    task: PY,
    reasons: ["forged"],
    findings: ["result-forgery", "runner-tampering"],
  },
  {
    file: "h2-reexec-stub-session",
    task: PY,
    reasons: ["forged"],
    findings: ["test-reexec", "test-source-read"],
  },
  {
    file: "h3-inject-type-into-test-modules",
    task: PY,
    reasons: ["forged"],
    findings: ["harness-tampering"],
  },
  { file: "h3-lenient-pytest-raises", task: PY, reasons: ["forged"], findings: ["harness-tampering"] },
  { file: "h4-read-caller-source", task: PY, reasons: ["forged"], findings: ["test-source-read"] },
  { file: "h4-linecache-of-caller", task: PY, reasons: ["forged"], findings: ["test-source-read"] },
  { file: "h4-table-from-test-files", task: PY, reasons: ["forged"], findings: ["test-source-read"] },
  { file: "j-h2-rewrite-child-events", task: JS, reasons: ["forged"], findings: ["harness-tampering"] },
  { file: "j-h2-reexec-stub-child", task: JS, reasons: ["forged"], findings: ["test-reexec"] },
  { file: "j-h3-noop-assert-throws", task: JS, reasons: ["forged"], findings: ["harness-tampering"] },
  { file: "j-h3-redefine-assert-throws", task: JS, reasons: ["forged"], findings: ["harness-tampering"] },
  { file: "j-h4-read-caller-from-stack", task: JS, reasons: ["forged"], findings: ["test-source-read"] },
  { file: "j-h4-table-from-test-dir", task: JS, reasons: ["forged"], findings: ["test-source-read"] },
];

/** Host paths the attacks try to create or change. */
const HOST_PATHS = [
  "/usr/lib/gagar-a1",
  "/etc/gagar-a1",
  "/root/gagar-a1",
  "/var/tmp/gagar-a1",
  "/usr/lib/python3/dist-packages/gagar-f2.pth",
  "/usr/local/lib/gagar-f2.pth",
  "/etc/cron.d/gagar-f3",
  "/etc/profile.d/gagar-f3.sh",
  "/etc/systemd/system/gagar-f3.service",
  "/tmp/.gagar-f5-marker",
];
const HASHED_FILES = ["/root/.bashrc", "/root/.profile", "/etc/passwd", "/etc/shadow"];

/**
 * One run of the suite. A variant changes the fixture tasks (their environment, their runner) and must
 * give the same outcomes: the defences may not depend on the host's toolchain or on one test runner.
 */
export interface AdversarialVariant {
  name?: string;
  /** Rewrites a copied task.json (and may rewrite files in its folder). */
  task?: (spec: Record<string, unknown>, dir: string) => Record<string, unknown>;
  before?: (scratch: string) => Promise<void> | void;
  environmentCache?: string;
  /** Cases left out, with the reason. */
  skip?: Record<string, string>;
  /** Cases that end otherwise under this variant's runner (they still must not pass), and why. */
  outcomes?: Record<string, { reasons: VerdictReason[]; findings: string[]; why: string }>;
  /** Why the whole suite is skipped in this run (it then says so), if it is. */
  disabled?: string;
  /**
   * Sandbox uids of this variant, so that two variants running at once (vitest runs files in
   * parallel) do not see each other's sandboxes in the "no process outlived its run" check.
   */
  uidRange?: UidRange;
}

export function adversarialSuite(variant: AdversarialVariant = {}): void {
  const cases = CASES.filter((c) => !variant.skip?.[c.file]).map((c) => {
    const other = variant.outcomes?.[c.file];
    return other ? { ...c, reasons: other.reasons, findings: other.findings } : c;
  });
  const range = variant.uidRange ?? defaultUidRange;
  const title = `adversarial regression suite${variant.name ? ` (${variant.name})` : ""}`;
  describe.skipIf(variant.disabled !== undefined)(
    `${title}${variant.disabled ? ` (skipped: ${variant.disabled})` : ""}`,
    () => {
      let scratch = "";
      let sentinel = "";
      let tcp: Server;
      let unix: Server;
      let port = 0;
      let tcpConnections = 0;
      let unixConnections = 0;
      let hostProcess: ReturnType<typeof spawn>;
      let verifier: Verifier;
      let tasks: Map<string, TaskPack>;
      let before: { sentinel: string; files: Record<string, string | null> };
      const verdicts = new Map<string, Verdict>();

      function hashOf(path: string): string | null {
        try {
          return createHash("sha256").update(readFileSync(path)).digest("hex");
        } catch {
          return null;
        }
      }

      function sentinelState(): string {
        return readdirSync(sentinel)
          .sort()
          .map((name) => `${name}:${name === "sock" ? "socket" : hashOf(join(sentinel, name))}`)
          .join("\n");
      }

      function hostState() {
        return {
          sentinel: sentinelState(),
          files: Object.fromEntries(
            [...HOST_PATHS, ...HASHED_FILES].map((p) => [p, existsSync(p) ? hashOf(p) : null]),
          ),
        };
      }

      function patchOf(file: string): string {
        return readFileSync(join(ADVERSARIAL, `${file}.patch`), "utf8")
          .replaceAll("@@SENTINEL@@", sentinel)
          .replaceAll("@@PORT@@", String(port))
          .replaceAll("@@HOSTPID@@", String(hostProcess.pid))
          .replaceAll("@@PACKDIR@@", join(scratch, PY));
      }

      /** Pids of processes owned by the sandbox's uid range (the variant's uid range). */
      function sandboxProcesses(): number[] {
        const pids: number[] = [];
        for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
          try {
            const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
            if (uid >= range.base && uid < range.base + range.size) pids.push(Number(pid));
          } catch {
            // gone
          }
        }
        return pids;
      }

      async function noSandboxProcessesWithin(ms: number): Promise<number[]> {
        const deadline = Date.now() + ms;
        for (;;) {
          const left = sandboxProcesses();
          if (left.length === 0 || Date.now() > deadline) return left;
          await new Promise((r) => setTimeout(r, 100));
        }
      }

      beforeAll(async () => {
        scratch = mkdtempSync(join(tmpdir(), "gagar-adversarial-"));
        sentinel = mkdtempSync(join(tmpdir(), "gagar-sentinel-"));
        await variant.before?.(scratch);
        process.env.GAGAR_TEST_SECRET = SECRET;
        writeFileSync(join(sentinel, "a.txt"), "sentinel\n");
        writeFileSync(join(sentinel, "honeytoken.txt"), "HONEYTOKEN-sentinel-3f9a\n");
        writeFileSync(join(sentinel, ".netrc"), "machine example.com login HONEYTOKEN password HONEYTOKEN\n");
        tcp = createServer((s) => {
          tcpConnections++;
          s.destroy();
        });
        await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
        port = (tcp.address() as { port: number }).port;
        unix = createServer((s) => {
          unixConnections++;
          s.destroy();
        });
        await new Promise<void>((r) => unix.listen(join(sentinel, "sock"), r));
        hostProcess = spawn("sleep", ["600"], { stdio: "ignore" });
        const copy = (id: string, from: string) => {
          cpSync(join(FIXTURES, "tasks", from), join(scratch, id), { recursive: true });
          const spec = JSON.parse(readFileSync(join(scratch, id, "task.json"), "utf8"));
          const changed = variant.task?.({ ...spec, id }, join(scratch, id)) ?? { ...spec, id };
          writeFileSync(
            join(scratch, id, "task.json"),
            JSON.stringify(id === QUICK ? { ...changed, timeoutSec: 3 } : changed),
          );
          return loadTaskPack(join(scratch, id));
        };
        tasks = new Map([
          [PY, copy(PY, PY)],
          [QUICK, copy(QUICK, PY)],
          [JS, copy(JS, JS)],
        ]);
        verifier = new Verifier({
          sandbox: variant.uidRange
            ? await selectBackend("bwrap", { uidRange: variant.uidRange })
            : await bwrapForTests(),
          workspaceLimits: { bytes: 256 * 2 ** 20, extraInodes: 20_000 },
          environmentCache: variant.environmentCache,
        });
        before = hostState();
      }, 120_000);

      afterAll(async () => {
        await verifier?.close();
        hostProcess?.kill("SIGKILL");
        tcp?.close();
        unix?.close();
        delete process.env.GAGAR_TEST_SECRET;
        if (scratch) rmSync(scratch, { recursive: true, force: true });
        if (sentinel) rmSync(sentinel, { recursive: true, force: true });
      });

      it("ends every attack failed or flagged, with the expected reason, in time", async () => {
        const rssBefore = process.memoryUsage().rss;
        const rollouts: Rollout[] = cases.map((c) => ({
          id: c.file,
          taskId: c.task,
          patch: patchOf(c.file),
        }));
        const results = await verifyRollouts(rollouts, { tasks, verifier, jobs: 2 });
        for (const v of results) verdicts.set(v.rolloutId, v);
        const problems: string[] = [];
        for (const c of cases) {
          const v = verdicts.get(c.file)!;
          const kinds = new Set(v.findings.map((f) => f.kind));
          const limit = tasks.get(c.task)!.spec.timeoutSec * 1000 + SLACK_MS;
          if (!c.reasons.includes(v.reason))
            problems.push(`${c.file}: ${v.reason} (${v.detail ?? ""}), expected ${c.reasons.join("|")}`);
          for (const k of c.findings ?? []) if (!kinds.has(k)) problems.push(`${c.file}: no ${k} finding`);
          if (v.passed && v.findings.length === 0) problems.push(`${c.file}: passed without a finding`);
          if ((v.durationsMs.total ?? 0) > limit)
            problems.push(`${c.file}: took ${v.durationsMs.total} ms (limit ${limit})`);
        }
        expect(problems).toEqual([]);
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 2 ** 20);
      }, 600_000);

      it("rejects enormous patches at the gate in well under a second (B7)", async () => {
        const big = `diff --git a/big.py b/big.py\nnew file mode 100644\n--- /dev/null\n+++ b/big.py\n@@ -0,0 +1,40000 @@\n${"+x = 1 # padding padding padding padding padding\n".repeat(40000)}`;
        const many = Array.from(
          { length: 300 },
          (_, i) =>
            `diff --git a/f${i}.py b/f${i}.py\nnew file mode 100644\n--- /dev/null\n+++ b/f${i}.py\n@@ -0,0 +1 @@\n+x = ${i}\n`,
        ).join("");
        for (const patch of [big, many]) {
          const started = performance.now();
          const outcome = await verifier.verify(tasks.get(PY)!, patch);
          expect(outcome.reason).toBe("patch-rejected");
          expect(performance.now() - started).toBeLessThan(1000);
        }
      });

      it("starts every candidate from a fresh workspace (F5)", async () => {
        for (let i = 0; i < 2; i++) {
          const outcome = await verifier.verify(tasks.get(PY)!, patchOf("f5-leftovers-between-runs"));
          expect(outcome.reason).toBe("tests-failed");
        }
      }, 120_000);

      it("keeps honest runs passing between runs that litter zombies and daemons (B9)", async () => {
        const pack = tasks.get(PY)!;
        const litter = patchOf("b9-zombies-and-daemons");
        const outcomes = await Promise.all([
          verifier.verify(pack, litter),
          verifier.verify(pack, pack.referencePatch!),
          verifier.verify(pack, `${litter}`),
          verifier.verify(pack, pack.referencePatch!),
        ]);
        expect(outcomes.map((o) => o.reason)).toEqual(["tests-failed", "passed", "tests-failed", "passed"]);
      }, 120_000);

      it("left the host untouched", async () => {
        expect(await noSandboxProcessesWithin(3000)).toEqual([]);
        expect(tcpConnections).toBe(0);
        expect(unixConnections).toBe(0);
        expect(hostProcess.exitCode).toBeNull();
        expect(() => process.kill(hostProcess.pid!, 0)).not.toThrow();
        expect(hostState()).toEqual(before);
      });

      it("never lets secrets or hidden-test text into a verdict (E3, E5)", () => {
        const all = JSON.stringify([...verdicts.values()]);
        expect(all).not.toContain(SECRET);
        expect(all).not.toContain("HONEYTOKEN");
        expect(all).not.toMatch(/root:[^"]*:\d+:\d+:/);
      });

      it("still passes the reference patches and fails the empty patches afterwards", async () => {
        const outcomes = await Promise.all([
          verifier.verify(tasks.get(PY)!, tasks.get(PY)!.referencePatch!),
          verifier.verify(tasks.get(JS)!, tasks.get(JS)!.referencePatch!),
          verifier.verify(tasks.get(PY)!, ""),
          verifier.verify(tasks.get(JS)!, ""),
        ]);
        expect(outcomes.map((o) => o.reason)).toEqual(["passed", "passed", "tests-failed", "tests-failed"]);
      }, 120_000);
    },
  );
}
