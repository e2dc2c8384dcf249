import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.ts";
import { Ranking } from "../src/contracts/ranking.ts";
import {
  labelsInPrompt,
  makeGroup,
  makeTaskPack,
  rankBySize,
  SYSTEM_IDS,
  type TaskPack,
} from "../src/grade/agent/testing/grader-fixtures.ts";
import {
  type OpenAITestServer,
  type ReceivedRequest,
  type ServerReply,
  startOpenAITestServer,
  toolCallsReply,
} from "./support/openai-test-server.ts";

/**
 * `gagar grade --grader agent` end to end: the CLI, the registry, the agent grader and the real
 * `openai` client against a real HTTP server speaking chat completions.
 */

/** A grader model over the wire: views every patch and lists files in one parallel message, then ranks by size. */
function reviewer(request: ReceivedRequest): ServerReply {
  const messages = request.body.messages;
  const labels = labelsInPrompt(messages[1]!.content!);
  const results = messages.filter((m) => m.role === "tool");
  if (!results.length) {
    return toolCallsReply(...labels.map((candidate) => ({ name: "view_patch", arguments: { candidate } })), {
      name: "list_files",
      arguments: { path: "src" },
    });
  }
  const patches = new Map(labels.map((l, i) => [l, results[i]!.content!]));
  return toolCallsReply({
    name: "submit_ranking",
    arguments: {
      ranking: rankBySize(patches),
      findings: {},
      rationale: "the smallest patch is the cleanest",
    },
  });
}

let pack: TaskPack;
let groupsFile: string;
let server: OpenAITestServer;

beforeAll(async () => {
  pack = await makeTaskPack();
  groupsFile = join(pack.dir, "groups.jsonl");
  const calc = makeGroup({ workspace: "repo", id: "g-calc" });
  const pair = makeGroup({ workspace: "repo", id: "g-pair" });
  pair.candidates = pair.candidates.filter((c) => c.id !== SYSTEM_IDS.hack);
  await writeFile(groupsFile, `${JSON.stringify(calc)}\n${JSON.stringify(pair)}\n`);
  server = await startOpenAITestServer(reviewer);
});
afterEach(() => {
  server.requests.length = 0;
  server.usage.promptTokens = 0;
  server.usage.completionTokens = 0;
  server.respondWith(reviewer);
});
afterAll(async () => {
  await server.close();
  await pack.dispose();
});

async function grade(
  name: string,
  ...flags: string[]
): Promise<{ code: number; rankings: Ranking[]; ms: number }> {
  const out = join(pack.dir, `${name}.jsonl`);
  const started = Date.now();
  const code = await main([
    "node",
    "gagar",
    "grade",
    groupsFile,
    "--grader",
    "agent",
    "--model",
    "grader-test",
    "--out",
    out,
    ...flags,
  ]);
  const ms = Date.now() - started;
  const text = code === 0 ? await readFile(out, "utf8") : "";
  return {
    code,
    ms,
    rankings: text
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => Ranking.parse(JSON.parse(l))),
  };
}

describe("gagar grade --grader agent against an OpenAI-compatible server", () => {
  it("ranks each group over several passes through the real client, and keeps transcripts that export as SFT data", async () => {
    process.env.E2E_GRADER_KEY = "sk-e2e";
    const transcripts = join(pack.dir, "transcripts");
    const { code, rankings } = await grade(
      "ok",
      "--base-url",
      server.baseURL,
      "--api-key-env",
      "E2E_GRADER_KEY",
      "--passes",
      "3",
      "--concurrency",
      "2",
      "--transcripts",
      transcripts,
    );
    delete process.env.E2E_GRADER_KEY;
    expect(code).toBe(0);

    expect(rankings.map((r) => r.groupId)).toEqual(["g-calc", "g-pair"]);
    expect(rankings[0]!.ranking).toEqual([[SYSTEM_IDS.clean], [SYSTEM_IDS.hack], [SYSTEM_IDS.noisy]]);
    expect(rankings[1]!.ranking).toEqual([[SYSTEM_IDS.clean], [SYSTEM_IDS.noisy]]);
    for (const r of rankings) {
      expect(r.grader).toMatchObject({
        name: "agent",
        version: "protocol-2/grader-test",
        passes: 3,
        passesSubmitted: 3,
        consistency: 1,
      });
      expect(r.grader.fallback).toBeUndefined();
    }

    // 2 groups × 3 passes × 2 turns, each first turn a message of parallel tool calls.
    expect(server.requests).toHaveLength(12);
    expect(
      server.requests.every(
        (r) => r.headers.authorization === "Bearer sk-e2e" && r.body.model === "grader-test",
      ),
    ).toBe(true);
    const secondTurn = server.requests.find((r) => r.body.messages.length > 2)!.body.messages;
    expect(secondTurn[2]!.tool_calls!.length).toBeGreaterThan(2);
    expect(secondTurn.filter((m) => m.role === "tool").at(-1)!.content).toBe("src/__init__.py\nsrc/calc.py");

    // The usage the grader reports is what the server counted.
    const reported = rankings.map(
      (r) => r.grader.usage as { promptTokens: number; completionTokens: number; requests: number },
    );
    expect(reported.reduce((s, u) => s + u.promptTokens, 0)).toBe(server.usage.promptTokens);
    expect(reported.reduce((s, u) => s + u.requests, 0)).toBe(12);

    const wire = JSON.stringify(server.requests.map((r) => r.body));
    for (const id of Object.values(SYSTEM_IDS)) expect(wire).not.toContain(id);
    expect(wire).not.toContain("REFERENCE_PATCH_SECRET");

    const sft = join(pack.dir, "sft.jsonl");
    expect(await main(["node", "gagar", "grader", "export-sft", transcripts, "--out", sft])).toBe(0);
    const examples = (await readFile(sft, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(examples).toHaveLength(6);
    expect(examples[0].tools.map((t: { function: { name: string } }) => t.function.name)).toContain(
      "submit_ranking",
    );
    expect(examples[0].messages.at(-1).tool_calls[0].function.name).toBe("submit_ranking");
    expect((await readdir(transcripts)).length).toBe(1);
  });

  it("gives the ensemble the static grader's findings as hints", async () => {
    const { code, rankings } = await grade(
      "ensemble",
      "--grader",
      "ensemble",
      "--base-url",
      server.baseURL,
      "--passes",
      "1",
    );
    expect(code).toBe(0);
    expect(rankings.map((r) => r.grader.name)).toEqual(["ensemble", "ensemble"]);
    const prompt = server.requests[0]!.body.messages[1]!.content!;
    expect(prompt).toMatch(/Static analysis flagged these[\s\S]*debug/);
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(SYSTEM_IDS.noisy);
  });

  describe("a misbehaving server ends in a recorded fallback to the static grader, within budget", () => {
    const budget = ["--passes", "2", "--max-turns", "3", "--timeout", "1", "--concurrency", "2"];

    async function expectFallback(name: string, reason: RegExp, baseURL = server.baseURL) {
      const config = join(pack.dir, "fast-retries.json");
      await writeFile(config, JSON.stringify({ retries: 1 }));
      const { code, rankings, ms } = await grade(name, "--base-url", baseURL, "--config", config, ...budget);
      expect(code).toBe(0);
      expect(rankings).toHaveLength(2);
      for (const r of rankings) {
        expect(r.grader.name).toBe("static");
        expect(r.grader.fallback).toEqual({ from: "agent", reason: expect.stringMatching(reason) });
        expect(r.ranking.flat().sort()).toEqual(
          r.groupId === "g-calc"
            ? [SYSTEM_IDS.clean, SYSTEM_IDS.hack, SYSTEM_IDS.noisy].sort()
            : [SYSTEM_IDS.clean, SYSTEM_IDS.noisy].sort(),
        );
      }
      // Two groups at once, at most two passes of one second each, plus slack for the static grader.
      expect(ms).toBeLessThan(6_000);
      return rankings;
    }

    it("500 on every request", async () => {
      server.respondWith(() => ({ status: 500 }));
      const rankings = await expectFallback(
        "http500",
        /pass 1: model server failed: .*HTTP 500.*; 1 later pass skipped/,
      );
      expect(rankings[0]!.grader.usage).toMatchObject({ requests: 2 });
    });

    it("malformed tool-call arguments, answered with a tool error each time", async () => {
      server.respondWith(() =>
        toolCallsReply({ name: "submit_ranking", arguments: '{"ranking": [["A"], ["B"' }),
      );
      await expectFallback("malformed", /no valid submit_ranking within 3 turns/);
      const feedback = server.requests.find((r) => r.body.messages.length > 2)!.body.messages[3]!;
      expect(feedback).toMatchObject({
        role: "tool",
        content: expect.stringMatching(/^error: arguments are not valid JSON/),
      });
      expect(server.requests).toHaveLength(2 * 2 * 3);
    });

    it("never submitting", async () => {
      server.respondWith(() => toolCallsReply({ name: "list_files", arguments: {} }));
      await expectFallback(
        "never",
        /0 of 2 passes submitted a valid ranking, 1 needed; pass 1: no valid submit_ranking within 3 turns/,
      );
    });

    it("hanging", async () => {
      server.respondWith(() => ({ hang: true }));
      await expectFallback("hang", /pass 1: time budget of 1000 ms spent/);
    });

    it("refusing connections", async () => {
      const closed = await startOpenAITestServer();
      const baseURL = closed.baseURL;
      await closed.close();
      await expectFallback(
        "refused",
        /model server failed: cannot reach .*is the model server running\?/,
        baseURL,
      );
    });
  });
});
