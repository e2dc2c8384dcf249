import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Group } from "../../contracts/group.ts";
import { Verdict } from "../../contracts/verdict.ts";
import { InputError } from "../../errors.ts";
import { saveCheck } from "../../verify/pack/task-check-file.ts";
import { loadTaskPack } from "../../verify/pack/task-pack.ts";
import { registerVerify } from "./verify.ts";

const TASKS = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gagar-cli-verify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function gagar(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerVerify(program);
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } finally {
    spy.mockRestore();
  }
  return stderr;
}

function writeRollouts(rows: object[]): string {
  const file = join(dir, `rollouts-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return file;
}

describe("gagar verify", () => {
  const reference = readFileSync(join(TASKS, "calc-div-zero", "reference.patch"), "utf8");

  it("writes verdicts and groups, and a summary per reason", async () => {
    const rollouts = writeRollouts([
      {
        id: "r1",
        taskId: "calc-div-zero",
        groupId: "g1",
        patch: reference,
        trajectory: { turns: 2, tokens: 50 },
      },
      { id: "r2", taskId: "calc-div-zero", groupId: "g1", patch: "" },
    ]);
    const out = join(dir, "verdicts.jsonl");
    const groupsOut = join(dir, "groups.jsonl");
    const stderr = await gagar(
      "verify",
      "--tasks",
      TASKS,
      "--rollouts",
      rollouts,
      "--out",
      out,
      "--groups-out",
      groupsOut,
      "--sandbox",
      "bwrap",
      "--jobs",
      "2",
    );
    const verdicts = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Verdict.parse(JSON.parse(l)));
    expect(verdicts.map((v) => [v.rolloutId, v.reason])).toEqual([
      ["r1", "passed"],
      ["r2", "tests-failed"],
    ]);
    const groups = readFileSync(groupsOut, "utf8")
      .trim()
      .split("\n")
      .map((l) => Group.parse(JSON.parse(l)));
    expect(groups).toHaveLength(1);
    expect(groups[0]!.candidates.map((c) => [c.id, c.passed, c.reward])).toEqual([
      ["r1", true, 1],
      ["r2", false, 0],
    ]);
    expect(stderr).toMatch(/passed\s+1\s+50\.0%/);
    expect(stderr).toMatch(/tests-failed\s+1\s+50\.0%/);
    expect(stderr).toContain("verified 2/2");
    // --jobs 2 starts both at once, so neither waited for a sandbox started ahead.
    expect(stderr).toContain("sandboxes: 2 started on demand, 0 started ahead");
  });

  it("keeps why a node:test candidate failed in its verdict, though node:test prints it only to the report", async () => {
    const rollouts = writeRollouts([{ id: "r1", taskId: "stats-mean", patch: "" }]);
    const out = join(dir, "why.jsonl");
    await gagar("verify", "--tasks", TASKS, "--rollouts", rollouts, "--out", out, "--sandbox", "bwrap");
    const verdict = Verdict.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(verdict.reason).toBe("tests-failed");
    expect(verdict.outputTail).not.toContain("Missing expected exception");
    expect(verdict.failureMessages).toMatch(
      /^test\/stats\.test\.js::mean > rejects empty arrays \(failed\)\n {2}Missing expected exception/,
    );
    expect(JSON.stringify(verdict)).not.toContain("HIDDEN-TEST-HONEYTOKEN");
  });

  it("refuses to score a task that gagar tasks check found invalid, one line per task", async () => {
    const tasks = join(dir, "checked");
    cpSync(TASKS, tasks, { recursive: true });
    const pack = loadTaskPack(join(tasks, "calc-div-zero"));
    saveCheck(pack, { taskId: pack.spec.id, valid: false, problems: ["the empty patch passes"] });
    const rollouts = writeRollouts([
      { id: "r1", taskId: "calc-div-zero", patch: reference },
      { id: "r2", taskId: "calc-div-zero", patch: "" },
    ]);
    const out = join(dir, "refused.jsonl");
    let stderr = "";
    await expect(
      gagar("verify", "--tasks", tasks, "--rollouts", rollouts, "--out", out, "--sandbox", "bwrap").catch(
        (e) => {
          stderr = String(e);
          throw e;
        },
      ),
    ).rejects.toThrow(/2 rollouts ended in infra-error/);
    const verdicts = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Verdict.parse(JSON.parse(l)));
    expect(verdicts.map((v) => v.reason)).toEqual(["infra-error", "infra-error"]);
    expect(verdicts[0]!.detail).toContain("found invalid by gagar tasks check (the empty patch passes)");
    expect(stderr).toBeTruthy();
  });

  it("names the line of a rollout with an unknown task or a repeated id", async () => {
    const unknown = writeRollouts([
      { id: "a", taskId: "calc-div-zero", patch: "" },
      { id: "b", taskId: "nope", patch: "" },
    ]);
    await expect(
      gagar("verify", "--tasks", TASKS, "--rollouts", unknown, "--out", join(dir, "x.jsonl")),
    ).rejects.toMatchObject({
      location: { file: unknown, line: 2, field: "taskId" },
    });
    const twice = writeRollouts([
      { id: "a", taskId: "calc-div-zero", patch: "" },
      { id: "a", taskId: "calc-div-zero", patch: "x" },
    ]);
    await expect(
      gagar("verify", "--tasks", TASKS, "--rollouts", twice, "--out", join(dir, "y.jsonl")),
    ).rejects.toBeInstanceOf(InputError);
  });

  it("refuses the unsandboxed backend without the explicit flag", async () => {
    const rollouts = writeRollouts([{ id: "a", taskId: "calc-div-zero", patch: "" }]);
    await expect(
      gagar(
        "verify",
        "--tasks",
        TASKS,
        "--rollouts",
        rollouts,
        "--out",
        join(dir, "z.jsonl"),
        "--sandbox",
        "unsandboxed",
      ),
    ).rejects.toThrow(/allow-unsandboxed/);
  });
});
