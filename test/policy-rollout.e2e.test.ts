import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchRow } from "../src/batch/batch-row.ts";
import { createPolicySourceFromConfig } from "../src/cli/policy-source.ts";
import { resolveConfig } from "../src/config/load.ts";
import { createOpenAIChatModel } from "../src/llm/openai-chat-model.ts";
import { runTraining } from "../src/pipeline/run.ts";
import { buildServices } from "../src/pipeline/services.ts";
import { PolicySource } from "../src/rollout/policy/policy-source.ts";
import { createBwrapBackend } from "../src/sandbox/bwrap.ts";
import type { SandboxBackend } from "../src/sandbox/types.ts";
import { openStore } from "../src/store/run-store.ts";
import {
  type OpenAITestServer,
  type ReceivedRequest,
  type ServerReply,
  startOpenAITestServer,
  type TokenMode,
  textReply,
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

describe("token-level trajectories over the OpenAI protocol", { timeout: 60_000 }, () => {
  const script = (): ServerReply[] => [
    toolCallsReply({ id: "t1", name: "shell", arguments: { command: "ls" } }),
    textReply("Nothing to change."),
  ];

  async function rollOut(tokens: TokenMode) {
    const tokenServer = await startOpenAITestServer(script(), { tokens });
    try {
      const source = new PolicySource({
        model: createOpenAIChatModel({ baseURL: tokenServer.baseURL, model: "policy-under-test" }),
        sandbox,
        scratchDir: await tempDir(),
      });
      const [rollout] = await source.generate({
        taskId: "rangeutil-inclusive",
        statement: "inclusive_range(1, 3) returns [1, 2].",
        repoDir: await makeRepo(),
        count: 1,
        groupId: `tokens-${tokens}`,
        drawIndex: 0,
      });
      return { rollout: rollout!, requests: tokenServer.requests };
    } finally {
      await tokenServer.close();
    }
  }

  it("stores the token ids and logprobs a vLLM-like server sampled, per assistant turn", async () => {
    const { rollout, requests } = await rollOut("vllm");
    const [first, second] = requests.map((r) => r.sampled!);
    expect(rollout.trajectory!.turnTokens).toEqual([
      {
        message: 2,
        promptReused: 0,
        promptTokenIds: first!.promptTokenIds,
        tokenIds: first!.tokenIds,
        logprobs: first!.logprobs,
      },
      {
        message: 4,
        // The second prompt is the first prompt, the first reply, then the tool's result.
        promptReused: first!.promptTokenIds.length + first!.tokenIds.length,
        promptTokenIds: second!.promptTokenIds.slice(first!.promptTokenIds.length + first!.tokenIds.length),
        tokenIds: second!.tokenIds,
        logprobs: second!.logprobs,
      },
    ]);
  });

  it("keeps token texts and logprobs from an OpenAI-like server, and nothing from one that refuses", async () => {
    const openai = await rollOut("openai");
    const turns = openai.rollout.trajectory!.turnTokens as Array<Record<string, unknown>>;
    expect(turns.map((t) => Object.keys(t).sort())).toEqual([
      ["logprobs", "message", "tokens"],
      ["logprobs", "message", "tokens"],
    ]);
    expect(turns[1]!.logprobs).toEqual(openai.requests.at(-1)!.sampled!.logprobs);

    const refused = await rollOut("refuse");
    expect(refused.rollout.trajectory!.turnTokens).toBeUndefined();
    expect(refused.rollout.trajectory).toMatchObject({ finishReason: "stop", turns: 2 });
  });
});

describe("a rollout past its wall-clock cap, through the pipeline", { timeout: 90_000 }, () => {
  it("ends with time_limit and its patch so far, which is verified, and the step completes", async () => {
    const root = resolve(import.meta.dirname, "..");
    let conversations = 0;
    const fixer = new Set<string>();
    server.respondWith((request: ReceivedRequest): ServerReply => {
      const { messages } = request.body;
      const firstCall = messages.find((m) => m.role === "assistant")?.tool_calls?.[0]?.id;
      if (firstCall === undefined) {
        // The first conversation fixes div() and then waits on a model that never answers again.
        if (conversations++ > 0)
          return toolCallsReply({ id: `quits-${conversations}`, name: "submit", arguments: {} });
        const id = "fixes-0";
        fixer.add(id);
        return toolCallsReply({
          id,
          name: "str_replace",
          arguments: {
            path: "calc.py",
            old: "def div(a, b):\n    return a / b",
            new: 'def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n    return a / b',
          },
        });
      }
      return { hang: true };
    });
    const out = await tempDir();
    const config = resolveConfig(
      {
        tasks: join(root, "test/fixtures/verify/tasks/calc-div-zero"),
        rollouts: {
          source: "policy",
          baseUrl: server.baseURL,
          model: "policy-under-test",
          concurrency: 2,
          rolloutTimeoutSec: 6,
          scratchDir: await tempDir(),
        },
        groupSize: 2,
        batchGroups: 1,
        sampling: { maxRounds: 1, oversample: 1, selection: "uniform" },
        out,
      },
      "test config",
      out,
    );
    const log: string[] = [];
    const started = Date.now();
    const built = await buildServices(config, {
      warn: (line) => log.push(line),
      policySource: (backend) => createPolicySourceFromConfig(config, backend),
    });
    const outcome = await runTraining(config, built.services, {
      steps: 1,
      log: (line) => log.push(line),
    }).finally(() => built.close());
    expect(Date.now() - started).toBeLessThan(60_000);

    const [step] = outcome.steps;
    const rows = readFileSync(step!.batchJsonl, "utf8")
      .trim()
      .split("\n")
      .map((line) => BatchRow.parse(JSON.parse(line)));
    expect(rows.map((r) => [r.finishReason, r.passed, r.turns]).sort()).toEqual([
      ["submit", false, 1],
      ["time_limit", true, 1],
    ]);
    expect(step!.metrics.passRate).toBe(0.5);
    expect(fixer.size).toBe(1);
    const store = openStore(outcome.storeFile);
    try {
      expect(store.getStep(outcome.runId, 0)?.status).toBe("done");
    } finally {
      store.close();
    }
  });
});
