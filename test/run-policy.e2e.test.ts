import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchRow } from "../src/batch/batch-row.ts";
import {
  type OpenAITestServer,
  type ReceivedRequest,
  startOpenAITestServer,
  toolCallsReply,
} from "./support/openai-test-server.ts";

/**
 * `gagar run` with `rollouts.source: "policy"`: the CLI builds the OpenAI-compatible client from the
 * config and reads the key from the environment; a real local server plays the policy. Of each
 * group's two rollouts, the first to start fixes the bug with a tool call and the other gives up,
 * so the group is mixed and kept. Verification, the batch and the store are all real.
 */
const root = resolve(import.meta.dirname, "..");
let server: OpenAITestServer;

/** First turn of a conversation: the first one seen fixes div(); the next one submits at once. */
function policy() {
  let conversations = 0;
  return (request: ReceivedRequest) => {
    const { messages } = request.body;
    const toolResults = messages.filter((m) => m.role === "tool").length;
    if (toolResults > 0) return toolCallsReply({ name: "submit", arguments: {} });
    if (conversations++ % 2 === 1) return toolCallsReply({ name: "submit", arguments: {} });
    return toolCallsReply({
      name: "str_replace",
      arguments: {
        path: "calc.py",
        old: "def div(a, b):\n    return a / b",
        new: 'def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n    return a / b',
      },
    });
  };
}

beforeAll(async () => {
  server = await startOpenAITestServer(policy());
});
afterAll(async () => {
  await server?.close();
});

describe("gagar run with a policy server", () => {
  it("rolls out through the real client, verifies, and exports a batch", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gagar-run-policy-"));
    const config = join(dir, "gagar.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        tasks: join(root, "test/fixtures/verify/tasks/calc-div-zero"),
        rollouts: {
          source: "policy",
          baseUrl: server.baseURL,
          model: "policy-under-test",
          apiKeyEnv: "TEST_POLICY_KEY",
          maxTurns: 4,
          concurrency: 1,
        },
        groupSize: 2,
        batchGroups: 1,
        sampling: { maxRounds: 1, oversample: 1, selection: "uniform" },
        out: join(dir, "out"),
      }),
    );
    const child = spawn(process.execPath, [join(root, "bin/gagar.js"), "run", "--config", config], {
      env: { ...process.env, TEST_POLICY_KEY: "sk-test-123" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise((r) => child.once("exit", r));
    expect(stderr).toMatch(/source: policy/);
    expect(code).toBe(0);

    // One group of two rollouts: the fixer calls str_replace then submit, the other submits at once.
    expect(server.requests).toHaveLength(3);
    const first = server.requests[0]!;
    expect(first.headers.authorization).toBe("Bearer sk-test-123");
    expect(first.body.model).toBe("policy-under-test");
    expect(first.body.tools!.map((t) => t.function.name)).toContain("str_replace");

    const runId = stderr.match(/step 0 of run (\S+)/)![1]!;
    const rows = readFileSync(join(dir, "out", "runs", runId, "step-0000", "batch.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => BatchRow.parse(JSON.parse(l)));
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.passed).sort()).toEqual([false, true]);
    const passed = rows.find((r) => r.passed)!;
    expect(passed.advantage).toBeGreaterThan(0);
    expect(passed.turns).toBe(2);
    expect(stdout).toMatch(/pass rate 50%/);
  }, 120_000);
});
