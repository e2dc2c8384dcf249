import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimiter } from "../concurrency/limiter.ts";
import type { Rollout } from "../contracts/rollout.ts";
import { Verdict } from "../contracts/verdict.ts";
import { ConfigError } from "../errors.ts";
import { processesOfUid } from "../sandbox/processes.ts";
import { selectBackend } from "../sandbox/select.ts";
import type { SandboxBackend } from "../sandbox/types.ts";
import { defaultUidRange } from "../sandbox/uid-pool.ts";
import { loadTaskPack, loadTaskPacks } from "./pack/task-pack.ts";
import { Verifier } from "./verifier.ts";
import { type VerifyProgress, verifyRollouts } from "./verify-rollouts.ts";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/verify/tasks", import.meta.url));
const tasks = loadTaskPacks(FIXTURES);
const py = tasks.get("calc-div-zero")!;
const js = tasks.get("stats-mean")!;
const scratch = mkdtempSync(join(tmpdir(), "gagar-verify-rollouts-"));
let sandbox: SandboxBackend;

beforeAll(async () => {
  sandbox = await selectBackend("bwrap");
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Processes of the sandbox uid pool started by this test process. Other test files (and other gagar
 * processes on the host) run sandboxes on the same pool at the same time; a sandbox this process
 * started is its descendant for as long as it lives (the pid namespace's init is, and reaps the rest).
 */
function sandboxProcesses(): number[] {
  const { base, size } = defaultUidRange;
  const pids = Array.from({ length: size }, (_, i) => processesOfUid(base + i)).flat();
  return pids.filter((pid) => descendsFromThisProcess(pid));
}

function descendsFromThisProcess(pid: number): boolean {
  for (let p = pid; p > 1; ) {
    if (p === process.pid) return true;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

describe("verifyRollouts", () => {
  it("verifies each distinct (task, patch) once and returns verdicts in input order", async () => {
    const rollouts: Rollout[] = [
      { id: "p-ref", taskId: py.spec.id, groupId: "g", patch: py.referencePatch! },
      { id: "j-ref", taskId: js.spec.id, patch: js.referencePatch! },
      { id: "p-ref-again", taskId: py.spec.id, groupId: "g", patch: py.referencePatch! },
      { id: "p-empty", taskId: py.spec.id, patch: "" },
      { id: "j-empty", taskId: js.spec.id, patch: "" },
    ];
    const progress: VerifyProgress[] = [];
    const verdicts = await verifyRollouts(rollouts, {
      tasks,
      sandbox,
      jobs: 2,
      onProgress: (p) => progress.push(p),
    });
    expect(verdicts.map((v) => [v.rolloutId, v.reason])).toEqual([
      ["p-ref", "passed"],
      ["j-ref", "passed"],
      ["p-ref-again", "passed"],
      ["p-empty", "tests-failed"],
      ["j-empty", "tests-failed"],
    ]);
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4]);
    // Diagnostics: the failing run's output says what failed, without quoting the hidden tests.
    const empty = verdicts.find((v) => v.rolloutId === "p-empty")!;
    expect(empty.outputTail).toMatch(/failed/);
    expect(empty.outputTail).toContain("gagar-runner: run pytest");
    expect(JSON.stringify(verdicts)).not.toContain("HONEYTOKEN");
    expect(progress.every((p) => p.total === 4)).toBe(true);
    expect(verdicts[0]).toMatchObject({ groupId: "g", schemaVersion: 1 });
    expect(verdicts[0]!.tests).toEqual(
      Object.fromEntries([...py.spec.failToPass, ...py.spec.passToPass].map((id) => [id, "passed"])),
    );
    expect(verdicts[3]!.tests["tests/test_calc.py::test_div_by_zero"]).toBe("failed");
    for (const v of verdicts) expect(Verdict.safeParse(v).success).toBe(true);
  });

  it("starts each later candidate's sandbox ahead, and leaves no sandbox behind", async () => {
    const verifier = new Verifier({ sandbox });
    try {
      const rollouts: Rollout[] = [
        ...["a", "b", "c"].map((n) => ({
          id: `p-${n}`,
          taskId: py.spec.id,
          // Distinct patches (a comment differs), so that deduplication keeps all three.
          patch: py.referencePatch!.replace('"division by zero")\n', `"division by zero")  # ${n}\n`),
        })),
        { id: "j-ref", taskId: js.spec.id, patch: js.referencePatch! },
      ];
      const verdicts = await verifyRollouts(rollouts, { tasks, verifier, jobs: 1 });
      expect(verdicts.map((v) => v.reason)).toEqual(["passed", "passed", "passed", "passed"]);
      // The first candidate of each task starts on demand; the next two of the python task start ahead.
      expect(verifier.stats).toEqual({ startedOnDemand: 2, startedAhead: 2, discarded: 0 });
      expect(sandboxProcesses()).toEqual([]);
    } finally {
      await verifier.close();
    }
  }, 60_000);

  it("under a limit shared by concurrent calls, finishes the calls in the order they came", async () => {
    const verifier = new Verifier({ sandbox });
    const limit = createLimiter(1);
    const finished: string[] = [];
    const call = (name: string) =>
      verifyRollouts(
        ["1", "2"].map((n) => ({
          id: `${name}-${n}`,
          taskId: py.spec.id,
          patch: py.referencePatch!.replace('"division by zero")\n', `"division by zero")  # ${name}${n}\n`),
        })),
        { tasks, verifier, jobs: 2, limit, onProgress: (p) => finished.push(p.verdict.rolloutId) },
      ).then((verdicts) => {
        finished.push(name);
        return verdicts;
      });
    try {
      const [a, b] = await Promise.all([call("a"), call("b")]);
      expect([...a, ...b].map((v) => v.reason)).toEqual(["passed", "passed", "passed", "passed"]);
      // With one slot, "a" must not wait for "b"'s jobs (a worker queued for a slot without a job would).
      expect(finished).toEqual(["a-1", "a-2", "a", "b-1", "b-2", "b"]);
      expect(sandboxProcesses()).toEqual([]);
    } finally {
      await verifier.close();
    }
  }, 60_000);

  it("refuses rollouts for unknown tasks before running anything", async () => {
    await expect(
      verifyRollouts([{ id: "x", taskId: "nope", patch: "" }], { tasks, sandbox }),
    ).rejects.toThrow(ConfigError);
  });

  it("turns a broken task pack into infra-error verdicts, not rewards", async () => {
    const dir = join(scratch, "calc-div-zero");
    cpSync(join(FIXTURES, "calc-div-zero"), dir, { recursive: true });
    execFileSync("mkfifo", [join(dir, "repo", "pipe")]);
    const broken = new Map([["calc-div-zero", loadTaskPack(dir)]]);
    const [verdict] = await verifyRollouts([{ id: "r", taskId: "calc-div-zero", patch: "" }], {
      tasks: broken,
      sandbox,
    });
    expect(verdict).toMatchObject({ passed: false, reason: "infra-error" });
    expect(verdict!.detail).toContain("task pack fault");
  });
});
