import { readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rollout } from "../../contracts/rollout.ts";
import { ConfigError } from "../../errors.ts";
import type { ChatRequest, ToolMessage } from "../../llm/chat-model.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";
import { ScriptedChatModel } from "../../llm/scripted-model.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import type { RolloutRequest } from "../types.ts";
import { PolicyServerError } from "./policy-server-error.ts";
import { PolicySource, type PolicySourceOptions } from "./policy-source.ts";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

const BUGGY =
  'def inclusive_range(start, stop):\n    """start..stop, both included."""\n    return list(range(start, stop))\n';
const CHECK = "python3 -c 'from ranges import inclusive_range as r; print(r(1, 3))'";

async function setup(overrides: Partial<PolicySourceOptions> & Pick<PolicySourceOptions, "model">) {
  const repo = await makeTree({ "ranges.py": BUGGY, "README.md": "# ranges\n" });
  const scratchDir = await makeTree({});
  let clock = 1_000;
  const source = new PolicySource({
    sandbox,
    scratchDir,
    maxTurns: 10,
    concurrency: 2,
    _internal: { now: () => (clock += 250) },
    ...overrides,
  });
  const request = (fields: Partial<RolloutRequest> = {}): RolloutRequest => ({
    taskId: "ranges-inclusive",
    statement: "inclusive_range(1, 3) leaves out 3.",
    repoDir: repo,
    count: 1,
    groupId: "g1",
    drawIndex: 0,
    ...fields,
  });
  return { repo, scratchDir, source, request };
}

/** The scripted model's fix of the fixture's bug. */
const FIX_CALL = {
  id: "fix",
  name: "str_replace",
  arguments: { path: "ranges.py", old: "stop))", new: "stop + 1))" },
};

/** The tool answers a rollout's transcript holds, by tool call id. */
function toolAnswers(rollout: Rollout): Map<string | undefined, string> {
  const messages = (rollout.trajectory?.messages ?? []) as Array<{ tool_call_id?: string; content: string }>;
  return new Map(messages.map((m) => [m.tool_call_id, m.content]));
}

/** The content of the tool message answering the call with `id` in a request. */
function toolResult(request: ChatRequest, id: string): string | undefined {
  const message = request.messages.find((m): m is ToolMessage => m.role === "tool" && m.toolCallId === id);
  return message?.content;
}

describe("PolicySource", { timeout: 90_000 }, () => {
  it("runs the tool loop in a sandboxed copy and returns the workspace diff with the full record", async () => {
    const model = new ScriptedChatModel([
      {
        content: "Reproduce first.",
        toolCalls: [{ id: "t1", name: "shell", arguments: { command: CHECK } }],
      },
      { toolCalls: [{ id: "t2", name: "read_file", arguments: { path: "ranges.py" } }] },
      {
        toolCalls: [
          { id: "t3", name: "str_replace", arguments: { path: "ranges.py", old: "range(start, stop)" } },
        ],
      },
      {
        toolCalls: [
          {
            id: "t4",
            name: "str_replace",
            arguments: { path: "ranges.py", old: "stop))", new: "stop + 1))" },
          },
          {
            id: "t5",
            name: "write_file",
            arguments: { path: "tests/test_ranges.py", content: "# new test\n" },
          },
          { id: "t6", name: "shell", arguments: { command: CHECK } },
        ],
      },
      {
        toolCalls: [{ id: "t7", name: "submit", arguments: {} }],
        usage: { promptTokens: 900, completionTokens: 7 },
      },
    ]);
    const { repo, scratchDir, source, request } = await setup({ model });
    const [rollout] = await source.generate(request());

    const calls = model.calls.map((c) => c.request);
    expect(toolResult(calls[1]!, "t1")).toBe("[1, 2]");
    expect(toolResult(calls[2]!, "t2")).toContain("     3\t    return list(range(start, stop))");
    expect(toolResult(calls[3]!, "t3")).toMatch(/^Error: invalid arguments for str_replace: new: /);
    expect(toolResult(calls[4]!, "t4")).toBe("Edited ranges.py: replaced 1 occurrence.");
    expect(toolResult(calls[4]!, "t5")).toBe("Wrote 11 bytes to tests/test_ranges.py");
    expect(toolResult(calls[4]!, "t6")).toBe("[1, 2, 3]");

    expect(rollout!.id).toBe("g1/p0");
    expect(rollout).toMatchObject({ taskId: "ranges-inclusive", groupId: "g1" });
    expect(rollout!.patch).toContain(
      "-    return list(range(start, stop))\n+    return list(range(start, stop + 1))\n",
    );
    expect(rollout!.patch).toContain("+++ b/tests/test_ranges.py");
    const trajectory = rollout!.trajectory as Record<string, unknown>;
    expect(trajectory).toMatchObject({
      turns: 5,
      tokens: 907,
      finishReason: "submit",
      toolCalls: 7,
      wallMs: 250,
      model: "scripted",
    });
    const usage = trajectory.usage as { promptTokens: number; completionTokens: number };
    expect(usage.promptTokens).toBeGreaterThan(900);
    expect(usage.completionTokens).toBeGreaterThan(7);
    // The transcript is in the chat format of the recorded examples.
    const messages = trajectory.messages as Array<Record<string, unknown>>;
    expect(messages).toHaveLength(2 + 5 + 7);
    expect(messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("/workspace") });
    expect(messages[1]).toEqual({
      role: "user",
      content:
        "<issue>\ninclusive_range(1, 3) leaves out 3.\n</issue>\n\nThe repository is checked out at /workspace. Please resolve the issue.",
    });
    expect(messages[2]).toEqual({
      role: "assistant",
      content: "Reproduce first.",
      tool_calls: [
        {
          id: "t1",
          type: "function",
          function: { name: "shell", arguments: JSON.stringify({ command: CHECK }) },
        },
      ],
    });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "t1", content: "[1, 2]" });

    // The pristine repo is untouched and every scratch workspace is gone.
    expect(await readFile(join(repo, "ranges.py"), "utf8")).toBe(BUGGY);
    expect(await readdir(repo)).toEqual(["README.md", "ranges.py"]);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it("does not let a symlink planted by the agent's shell carry write_file or read_file out of the workspace", async () => {
    const host = await makeTree({ "sentinel.txt": "untouched\n", "secret.txt": "host secret 51f0\n" });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          {
            id: "plant",
            name: "shell",
            arguments: {
              command: `ln -s ${host}/sentinel.txt evil.txt && ln -s ${host} evildir && ln -s ${host}/secret.txt leak.txt && cat leak.txt`,
            },
          },
        ],
      },
      {
        toolCalls: [
          { id: "w1", name: "write_file", arguments: { path: "evil.txt", content: "pwned\n" } },
          { id: "w2", name: "write_file", arguments: { path: "evildir/planted.txt", content: "pwned\n" } },
          { id: "w3", name: "str_replace", arguments: { path: "evil.txt", old: "untouched", new: "pwned" } },
          { id: "r1", name: "read_file", arguments: { path: "leak.txt" } },
        ],
      },
      { toolCalls: [{ name: "submit", arguments: {} }] },
    ]);
    const { source, request } = await setup({ model });
    const [rollout] = await source.generate(request());

    const second = model.calls[1]!.request;
    const third = model.calls[2]!.request;
    expect(toolResult(second, "plant")).toMatch(/No such file or directory\n\n\[exit code: 1\]$/);
    for (const id of ["w1", "w2", "w3", "r1"])
      expect(toolResult(third, id)).toMatch(/^Error: .*symbolic link/);
    expect(JSON.stringify(rollout)).not.toContain("51f0");
    expect(await readFile(join(host, "sentinel.txt"), "utf8")).toBe("untouched\n");
    expect((await readdir(host)).sort()).toEqual(["secret.txt", "sentinel.txt"]);
    // The links themselves are the agent's patch (mode 120000), for the verifier's gate to reject.
    expect(rollout!.patch).toContain("new file mode 120000");
  });

  it("throws an error naming the model server when calls fail past the retries, stopping the group", async () => {
    const model = new ScriptedChatModel((request: ChatRequest) =>
      request.messages.length > 2
        ? {
            error: new ChatModelError("http://10.0.0.7:8000/v1 answered HTTP 503: overloaded", "server", {
              status: 503,
            }),
          }
        : { toolCalls: [{ name: "shell", arguments: { command: "true" } }] },
    );
    const { source, request, scratchDir } = await setup({ model, concurrency: 1 });
    const error = await source.generate(request({ count: 3 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyServerError);
    expect((error as PolicyServerError).message).toBe(
      'policy model server failed for model "scripted" in rollout g1/p0 (server): http://10.0.0.7:8000/v1 answered HTTP 503: overloaded',
    );
    expect((error as PolicyServerError).retryable).toBe(true);
    // The failure stopped the other rollouts before they called the model (concurrency 1: they were queued).
    expect(model.calls).toHaveLength(2);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it("limits rollouts in flight across groups, gives ids unique within a group, and keeps index order", async () => {
    let inFlight = 0;
    let peak = 0;
    const model = new ScriptedChatModel(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 100));
      inFlight--;
      return { content: "No tools needed." };
    });
    const { source, request } = await setup({ model, concurrency: 2 });
    const groups = await Promise.all([
      source.generate(request({ groupId: "ga", count: 3 })),
      source.generate(request({ groupId: "gb", count: 2 })),
    ]);
    expect(peak).toBe(2);
    expect(groups.map((g: Rollout[]) => g.map((r) => r.id))).toEqual([
      ["ga/p0", "ga/p1", "ga/p2"],
      ["gb/p0", "gb/p1"],
    ]);
    for (const rollout of groups.flat()) {
      expect(rollout.patch).toBe("");
      expect(rollout.trajectory).toMatchObject({ finishReason: "stop", turns: 1, toolCalls: 0 });
    }
  });

  it("gives each rollout a workspace tmpfs of the configured size and ends one that fills it with its patch so far", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          FIX_CALL,
          { id: "df", name: "shell", arguments: { command: "df -B1 --output=size /workspace | tail -n 1" } },
        ],
      },
      {
        toolCalls: [
          {
            id: "flood",
            name: "shell",
            arguments: {
              command:
                "mkdir -p cache; i=0; while head -c 4M /dev/zero > cache/blob$i; do i=$((i+1)); done; echo stopped",
            },
          },
          { id: "after", name: "shell", arguments: { command: "touch after-the-flood" } },
        ],
      },
    ]);
    const { source, request, scratchDir, repo } = await setup({ model, workspaceBytes: 32 * 2 ** 20 });
    await writeFile(join(repo, ".gitignore"), "cache/\n");
    const [rollout] = await source.generate(request());

    const answers = toolAnswers(rollout!);
    expect(answers.get("df")?.trim()).toBe(String(32 * 2 ** 20));
    expect(answers.get("flood")).toMatch(/No space left on device\nstopped$/);
    expect(answers.get("after")).toBe(
      "Error: not run, because the workspace is full (its disk quota is used up).",
    );
    expect(rollout!.trajectory).toMatchObject({ finishReason: "workspace_full", turns: 2 });
    expect(rollout!.patch).toContain("+    return list(range(start, stop + 1))");
    expect(rollout!.patch).not.toContain("cache/");
    expect(await readdir(scratchDir)).toEqual([]);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(scratchDir);
  });

  it("ends a rollout that uses up its workspace's inode quota with its patch so far", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          FIX_CALL,
          {
            id: "files",
            name: "shell",
            arguments: {
              command: "mkdir -p cache; i=0; while touch cache/f$i; do i=$((i+1)); done; echo stopped",
            },
          },
        ],
      },
    ]);
    const { source, request, scratchDir, repo } = await setup({ model, workspaceInodes: 500 });
    await writeFile(join(repo, ".gitignore"), "cache/\n");
    const [rollout] = await source.generate(request());
    const answers = toolAnswers(rollout!);
    expect(answers.get("files")).toMatch(/No space left on device\nstopped$/);
    expect(rollout!.trajectory).toMatchObject({ finishReason: "workspace_full" });
    expect(rollout!.patch).toContain("+    return list(range(start, stop + 1))");
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it("ends a rollout at its wall-clock cap with the patch so far", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [FIX_CALL],
      },
      { toolCalls: [{ id: "slow", name: "shell", arguments: { command: "sleep 60" } }] },
    ]);
    const { source, request } = await setup({ model, rolloutTimeoutSec: 2 });
    const started = Date.now();
    const [rollout] = await source.generate(request());
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(rollout!.trajectory).toMatchObject({ finishReason: "time_limit", turns: 2, toolCalls: 2 });
    expect(rollout!.patch).toContain("+    return list(range(start, stop + 1))");
  });

  it("stores the tokens the server reported per assistant turn, prompts as deltas", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [{ name: "shell", arguments: { command: "true" } }],
        tokens: { promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.5, -1.5] },
      },
      {
        toolCalls: [{ name: "submit", arguments: {} }],
        tokens: { promptTokenIds: [1, 2, 3, 4, 5, 6, 7], tokenIds: [8], logprobs: [-0.25] },
      },
    ]);
    const { source, request } = await setup({ model });
    const [rollout] = await source.generate(request());
    expect(model.calls.every((c) => c.request.logprobs === true)).toBe(true);
    expect(rollout!.trajectory!.turnTokens).toEqual([
      { message: 2, promptReused: 0, promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.5, -1.5] },
      { message: 4, promptReused: 5, promptTokenIds: [6, 7], tokenIds: [8], logprobs: [-0.25] },
    ]);
  });

  it("rejects bad options and requests with a message naming the setting", async () => {
    const model = new ScriptedChatModel([]);
    expect(() => new PolicySource({ model, sandbox, maxTurns: 0 })).toThrow(
      new ConfigError("policy option maxTurns must be a positive integer, got 0"),
    );
    expect(() => new PolicySource({ model, sandbox, timeoutSec: -1 })).toThrow(
      /timeoutSec must be a positive number/,
    );
    const { source, request } = await setup({ model });
    await expect(source.generate(request({ count: 0 }))).rejects.toThrow(/count >= 1/);
    await expect(source.generate(request({ repoDir: "/nonexistent/repo" }))).rejects.toThrow(ConfigError);
  });
});
