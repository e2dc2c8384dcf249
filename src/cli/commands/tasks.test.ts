import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerTasks } from "./tasks.ts";

const TASKS = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gagar-cli-tasks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function gagar(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerTasks(program);
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

describe("gagar tasks check", () => {
  it("lists valid packs and, with --run, checks reference and empty patches for real", async () => {
    const copy = join(dir, "all");
    cpSync(TASKS, copy, { recursive: true });
    const stderr = await gagar("tasks", "check", copy, "--run", "--sandbox", "bwrap", "--jobs", "2");
    expect(stderr).toContain("2 task packs are valid");
    expect(stderr).toContain("all 2 tasks are valid");
    expect(JSON.parse(readFileSync(join(copy, "calc-div-zero", "check.json"), "utf8"))).toMatchObject({
      valid: true,
      problems: [],
    });
  });

  it("fails when a reference patch does not pass", async () => {
    const pack = join(dir, "calc-div-zero");
    cpSync(join(TASKS, "calc-div-zero"), pack, { recursive: true });
    const broken = readFileSync(join(pack, "reference.patch"), "utf8").replace(
      'raise ValueError("division by zero")',
      'raise ValueError("nope")',
    );
    writeFileSync(join(pack, "reference.patch"), broken);
    let stderr = "";
    await expect(
      gagar("tasks", "check", pack, "--run", "--sandbox", "bwrap").catch((e) => {
        stderr = String((e as Error).message);
        throw e;
      }),
    ).rejects.toThrow(/1 of 1 tasks are invalid \(calc-div-zero\)/);
    const stored = JSON.parse(readFileSync(join(pack, "check.json"), "utf8"));
    expect(stored.valid).toBe(false);
    expect(stored.problems[0]).toMatch(/^the reference patch does not pass: tests-failed/);
    expect(stderr).toBeTruthy();
  });
});

describe("gagar tasks import", () => {
  it("rejects a test command with an unterminated quote", async () => {
    await expect(
      gagar("tasks", "import", "x.jsonl", "--repos", dir, "--out", dir, "--test-command", "pytest 'oops"),
    ).rejects.toThrow(/unterminated/);
  });
});
