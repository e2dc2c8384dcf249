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
    const stderr = await gagar("tasks", "check", TASKS, "--run", "--sandbox", "bwrap", "--jobs", "2");
    expect(stderr).toContain("2 task packs are valid");
    expect(stderr).toContain("every reference patch passes and every empty patch fails");
  });

  it("fails when a reference patch does not pass", async () => {
    const pack = join(dir, "calc-div-zero");
    cpSync(join(TASKS, "calc-div-zero"), pack, { recursive: true });
    const broken = readFileSync(join(pack, "reference.patch"), "utf8").replace(
      'raise ValueError("division by zero")',
      'raise ValueError("nope")',
    );
    writeFileSync(join(pack, "reference.patch"), broken);
    await expect(gagar("tasks", "check", pack, "--run", "--sandbox", "bwrap")).rejects.toThrow(
      /calc-div-zero\/reference/,
    );
  });
});

describe("gagar tasks import", () => {
  it("rejects a test command with an unterminated quote", async () => {
    await expect(
      gagar("tasks", "import", "x.jsonl", "--repos", dir, "--out", dir, "--test-command", "pytest 'oops"),
    ).rejects.toThrow(/unterminated/);
  });
});
