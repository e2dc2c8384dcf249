import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../src/llm/openai-chat-model.ts";
import { PolicySource } from "../src/rollout/policy/policy-source.ts";
import { createBwrapBackend } from "../src/sandbox/bwrap.ts";
import type { SandboxBackend } from "../src/sandbox/types.ts";
import {
  type OpenAITestServer,
  startOpenAITestServer,
  toolCallsReply,
} from "./support/openai-test-server.ts";

/**
 * End to end: policy rollouts against a real HTTP server speaking the OpenAI chat-completions
 * protocol, through the real client (`createOpenAIChatModel`) and the real bwrap sandbox. The server
 * plays a policy that reproduces an off-by-one bug, reads the file, fixes it and submits; the test
 * then applies the returned patch to a fresh copy and runs the fixed function.
 */
const BUGGY =
  'def inclusive_range(start, stop):\n    """The integers from start to stop, both included."""\n' +
  "    return list(range(start, stop))\n";
const CHECK = "python3 -c 'from rangeutil import inclusive_range as r; print(r(1, 3))'";

let server: OpenAITestServer;
let sandbox: SandboxBackend;
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gagar-policy-e2e-"));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  server = await startOpenAITestServer();
  sandbox = createBwrapBackend();
  const availability = await sandbox.check();
  if (!availability.available)
    throw new Error(`this test needs the bwrap sandbox: ${availability.missing.join("; ")}`);
});

afterAll(async () => {
  await server?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function makeRepo(): Promise<string> {
  const repo = await tempDir();
  await writeFile(join(repo, "rangeutil.py"), BUGGY);
  await writeFile(join(repo, "README.md"), "# rangeutil\n");
  return repo;
}

function policy(scratchDir: string) {
  return new PolicySource({
    model: createOpenAIChatModel({ baseURL: server.baseURL, model: "policy-under-test" }),
    sandbox,
    maxTurns: 8,
    maxTokens: 1024,
    timeoutSec: 20,
    temperature: 1,
    concurrency: 2,
    commandTimeoutSec: 20,
    scratchDir,
  });
}

const runPython = (cwd: string, code: string) =>
  execFileSync("/usr/bin/python3", ["-c", code], { cwd, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });

describe("policy rollouts over the OpenAI protocol", { timeout: 60_000 }, () => {
  it("fix a real bug through the tools, and the patch applies to a fresh copy and fixes it", async () => {
    server.respondWith([
      toolCallsReply({ id: "c1", name: "shell", arguments: { command: `ls && ${CHECK}` } }),
      toolCallsReply({ id: "c2", name: "read_file", arguments: { path: "rangeutil.py" } }),
      // Two calls in one message: the fix, then the check.
      toolCallsReply(
        {
          id: "c3",
          name: "str_replace",
          arguments: {
            path: "rangeutil.py",
            old: "list(range(start, stop))",
            new: "list(range(start, stop + 1))",
          },
        },
        { id: "c4", name: "shell", arguments: { command: CHECK } },
      ),
      {
        content: "Fixed: the stop bound is now included.",
        toolCalls: [{ id: "c5", name: "submit", arguments: {} }],
        usage: { prompt_tokens: 4321, completion_tokens: 12 },
      },
    ]);
    const repo = await makeRepo();
    const scratch = await tempDir();
    const [rollout, ...rest] = await policy(scratch).generate({
      taskId: "rangeutil-inclusive",
      statement: "inclusive_range(1, 3) returns [1, 2]; it should include the stop value.",
      repoDir: repo,
      count: 1,
      groupId: "e2e",
      drawIndex: 0,
    });
    expect(rest).toEqual([]);

    // What went over the wire: the tools, the settings, and real tool results from the sandbox.
    const bodies = server.requests.map((r) => r.body);
    expect(bodies).toHaveLength(4);
    expect(bodies[0]).toMatchObject({ model: "policy-under-test", max_tokens: 1024, temperature: 1 });
    expect(bodies[0]!.tools!.map((t) => t.function.name)).toEqual([
      "shell",
      "read_file",
      "write_file",
      "str_replace",
      "submit",
    ]);
    const toolMessage = (i: number, id: string) =>
      bodies[i]!.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content;
    expect(toolMessage(1, "c1")).toBe("README.md\nrangeutil.py\n[1, 2]");
    expect(toolMessage(2, "c2")).toContain("     3\t    return list(range(start, stop))");
    expect(toolMessage(3, "c3")).toBe("Edited rangeutil.py: replaced 1 occurrence.");
    expect(toolMessage(3, "c4")).toBe("[1, 2, 3]");

    // The record: turns, usage as the server reported it, the trajectory length from the last call.
    expect(rollout!.id).toBe("e2e/p0");
    expect(rollout!.trajectory).toMatchObject({
      turns: 4,
      toolCalls: 5,
      finishReason: "submit",
      tokens: 4321 + 12,
      usage: server.usage,
      model: "policy-under-test",
    });
    expect((rollout!.trajectory as { usage: { estimated?: boolean } }).usage.estimated).toBeUndefined();

    // The patch applies to a fresh copy with git apply, and the function is fixed there.
    const fresh = await tempDir();
    await cp(repo, fresh, { recursive: true });
    expect(runPython(fresh, "from rangeutil import inclusive_range as r; print(r(1, 3))")).toBe("[1, 2]\n");
    await writeFile(join(scratch, "fix.patch"), rollout!.patch);
    execFileSync("git", ["apply", "--check", join(scratch, "fix.patch")], { cwd: fresh });
    execFileSync("git", ["apply", join(scratch, "fix.patch")], { cwd: fresh });
    expect(runPython(fresh, "from rangeutil import inclusive_range as r; print(r(1, 3), r(5, 5))")).toBe(
      "[1, 2, 3] [5]\n",
    );
    expect(rollout!.patch).toMatch(/^diff --git a\/rangeutil.py b\/rangeutil.py\n/);
    expect(rollout!.patch.match(/^diff --git/gm)).toHaveLength(1);
  });

  it("records estimated usage, flagged, when the server reports none", async () => {
    server.respondWith([{ content: "Nothing to do.", usage: null }]);
    const [rollout] = await policy(await tempDir()).generate({
      taskId: "rangeutil-inclusive",
      statement: "inclusive_range(1, 3) returns [1, 2].",
      repoDir: await makeRepo(),
      count: 1,
      groupId: "e2e-estimated",
      drawIndex: 0,
    });
    const trajectory = rollout!.trajectory as { usage: { promptTokens: number; estimated?: boolean } };
    expect(rollout!.trajectory).toMatchObject({ turns: 1, toolCalls: 0, finishReason: "stop" });
    expect(rollout!.patch).toBe("");
    expect(trajectory.usage.estimated).toBe(true);
    expect(trajectory.usage.promptTokens).toBeGreaterThan(100);
  });
});
