import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { MAX_COMMAND_BYTES, runShellTool } from "./shell-tool.ts";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

async function shell(command: string, options: { timeoutMs?: number; outputCapBytes?: number } = {}) {
  const workspace = await makeTree({ "data.txt": "alpha\n" });
  return runShellTool(
    {
      sandbox,
      workspace,
      timeoutMs: options.timeoutMs ?? 30_000,
      outputCapBytes: options.outputCapBytes ?? 1 << 20,
    },
    command,
  );
}

describe.concurrent("the shell tool", { timeout: 60_000 }, () => {
  it("runs in /workspace as an unprivileged user, stderr interleaved, and reports a failing exit code", async () => {
    const out = await shell("pwd; cat data.txt; id -u; echo oops >&2; echo after; exit 3");
    const [pwd, data, uid, ...rest] = out.split("\n");
    expect([pwd, data]).toEqual(["/workspace", "alpha"]);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(rest).toEqual(["oops", "after", "", "[exit code: 3]"]);
  });

  it("passes the command verbatim: quotes, $ and multiple lines", async () => {
    expect(await shell("x='a b'\necho \"$x\" '$HOME'\necho $((6 * 7))")).toBe("a b $HOME\n42");
  });

  it("says when a command printed nothing", async () => {
    expect(await shell("true")).toBe("(no output)");
  });

  it("kills a command at its time limit and says so", async () => {
    expect(await shell("echo started; sleep 30", { timeoutMs: 1500 })).toBe(
      "started\n\n[timed out after 1.5 s; the command was killed]",
    );
  });

  it("kills a command that prints without end", async () => {
    const out = await shell("yes", { outputCapBytes: 4096 });
    expect(out.endsWith("[the command printed more than 4096 bytes and was killed]")).toBe(true);
  });

  it("answers commands no process can be started with, without starting one", async () => {
    expect(await shell("echo a\0b")).toBe(
      "Error: the command contains a NUL byte, which no shell command can.",
    );
    const huge = `echo ${"x".repeat(MAX_COMMAND_BYTES)}`;
    expect(await shell(huge)).toMatch(/^Error: the command is 102405 bytes; at most 102400 are accepted\./);
  });
});
