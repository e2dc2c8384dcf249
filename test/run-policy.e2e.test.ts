import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchRow } from "../src/batch/batch-row.ts";
import {
  type OpenAITestServer,
  type ReceivedRequest,
  type ServerReply,
  startOpenAITestServer,
  toolCallsReply,
} from "./support/openai-test-server.ts";

/**
 * `gagar run` with `rollouts.source: "policy"`: the CLI builds the OpenAI-compatible client from the
 * config and reads the key from the environment; a real local server plays the policy and, like vLLM,
 * returns token ids and logprobs. Verification, grading, the batch and the store are all real.
 *
 * The group's three rollouts run at once, and each one plays a different part (by the order in which
 * their conversations start):
 * - a clumsy agent that makes every common tool mistake — paths through a regular file, a directory
 *   read as a file, an unknown tool, malformed JSON, a missing file, `str_replace` text that is not
 *   there, NUL bytes, an over-long path — and still fixes the bug and submits;
 * - one that fixes the bug and then fills its workspace quota with a cache that git ignores;
 * - one that gives up (the failing rollout that makes the group informative).
 * The step must complete, both fixes must pass the hidden tests, and every reply's tokens must reach
 * the stored trajectory and the batch row's `tokensRef`. (A rollout past its wall-clock cap is in
 * policy-rollout.e2e.test.ts: here the cap would race the clumsy agent on a busy machine.)
 */
const root = resolve(import.meta.dirname, "..");
const TASK = join(root, "examples/tasks/tinyini-delimiter");

const OLD = `    if ":" in line:
        key, value = line.split(":", 1)
    elif "=" in line:
        key, value = line.split("=", 1)
    else:
        raise ParseError(lineno, f"expected 'key = value' or 'key: value', got {line!r}")`;
const NEW = `    # The delimiter is whichever of "=" and ":" comes first; the value may contain the other one.
    cuts = [i for i in (line.find("="), line.find(":")) if i != -1]
    if not cuts:
        raise ParseError(lineno, f"expected 'key = value' or 'key: value', got {line!r}")
    key, value = line[: min(cuts)], line[min(cuts) + 1 :]`;
const FIX = { name: "str_replace", arguments: { path: "tinyini/parser.py", old: OLD, new: NEW } };
const VISIBLE_TESTS = "python3 -m pytest -q -p no:cacheprovider tests/test_parser.py 2>&1 | tail -n 1";

/** Each mistake with the start of the answer the model must get. */
const MISTAKES: Array<{ call: { name: string; arguments: unknown }; answer: RegExp }> = [
  {
    call: { name: "read_file", arguments: { path: "tinyini/parser.py/_split_pair" } },
    answer: /^Error: tinyini\/parser\.py\/_split_pair: a component of the path is not a directory\.$/,
  },
  {
    call: { name: "write_file", arguments: { path: "tinyini/parser.py/fix.py", content: "x = 1\n" } },
    answer: /^Error: tinyini\/parser\.py\/fix\.py: a component of the path is not a directory\.$/,
  },
  { call: { name: "read_file", arguments: { path: "tinyini" } }, answer: /^Error: tinyini is a directory/ },
  {
    call: { name: "open_file", arguments: { path: "tinyini/parser.py" } },
    answer: /^Error: unknown tool "open_file"/,
  },
  {
    call: { name: "read_file", arguments: '{"path": "tinyini/parser.py"' },
    answer: /^Error: the arguments of read_file are not valid JSON/,
  },
  {
    call: { name: "read_file", arguments: { path: "tinyini/parsers.py" } },
    answer: /^Error: tinyini\/parsers\.py: no such file or directory\.$/,
  },
  {
    // Quoted the other way than in the file: not there.
    call: {
      name: "str_replace",
      arguments: { path: "tinyini/parser.py", old: "if ':' in line:", new: "if 1:" },
    },
    answer: /^Error: `old` must occur exactly once in tinyini\/parser\.py, found 0 occurrences/,
  },
  {
    call: { name: "read_file", arguments: { path: "tinyini/parser.py\u0000.bak" } },
    answer: /^Error: the path must not contain NUL bytes\.$/,
  },
  {
    call: { name: "shell", arguments: { command: "cat tinyini/\u0000parser.py" } },
    answer: /^Error: the command contains a NUL byte/,
  },
  { call: { name: "read_file", arguments: { path: "a/".repeat(3000) } }, answer: /: file name too long\.$/ },
];

type Part = "clumsy" | "quota" | "gives-up";
const PARTS: Part[] = ["clumsy", "quota", "gives-up"];

/** The scripted policy: the k-th tool call of a conversation is `<part>-<k>`, which says who is speaking. */
function policy() {
  const scripts: Record<Part, Array<{ name: string; arguments: unknown }>> = {
    clumsy: [
      ...MISTAKES.map((m) => m.call),
      FIX,
      { name: "shell", arguments: { command: VISIBLE_TESTS } },
      { name: "submit", arguments: {} },
    ],
    quota: [
      FIX,
      { name: "shell", arguments: { command: "df -B1 --output=size /workspace | tail -n 1" } },
      {
        name: "shell",
        arguments: {
          command:
            "mkdir -p .pytest_cache; i=0; while head -c 4M /dev/zero > .pytest_cache/blob$i; do i=$((i+1)); done; echo stopped",
        },
      },
      { name: "submit", arguments: {} },
    ],
    "gives-up": [{ name: "submit", arguments: {} }],
  };
  let started = 0;
  return (request: ReceivedRequest): ServerReply => {
    const assistants = request.body.messages.filter((m) => m.role === "assistant");
    const part: Part = assistants.length
      ? (assistants[0]!.tool_calls![0]!.id.split("-").slice(0, -1).join("-") as Part)
      : PARTS[started++ % PARTS.length]!;
    return toolCallsReply({ ...scripts[part][assistants.length]!, id: `${part}-${assistants.length}` });
  };
}

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAITestServer(policy(), { tokens: "vllm" });
});
afterAll(async () => {
  await server?.close();
});

interface StoredTurn {
  message: number;
  promptReused: number;
  promptTokenIds: number[];
  tokenIds: number[];
  logprobs: number[];
}

/** Runs the decoder printed in docs/verl.md on a tokens.jsonl file. */
function decodeWithDocsSnippet(tokensFile: string) {
  const docs = readFileSync(join(root, "docs/verl.md"), "utf8");
  const snippet = /```python\n(# gagar: tokens\.jsonl[\s\S]*?)```/.exec(docs)?.[1];
  expect(snippet, "docs/verl.md has the tokens.jsonl decoder").toBeDefined();
  const driver = `
import json, sys
out = []
for line in open(sys.argv[1]):
    rec = json.loads(line)
    out.append({"key": rec["groupId"] + "/" + rec["candidateId"],
                "turns": [list(t) for t in turns_of(rec["turnTokens"])],
                "stream": token_stream(rec["turnTokens"])})
print(json.dumps(out))
`;
  const output = execFileSync("/usr/bin/python3", ["-c", `${snippet}\n${driver}`, tokensFile], {
    encoding: "utf8",
  });
  return JSON.parse(output) as Array<{
    key: string;
    turns: Array<[number[], number[], number[]]>;
    stream: {
      prompt_ids: number[];
      response_ids: number[];
      response_mask: number[];
      rollout_logprobs: number[];
    };
  }>;
}

describe("gagar run with a policy server", () => {
  it("survives every tool mistake, ends a rollout at its disk quota, completes the step and keeps the tokens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gagar-run-policy-"));
    const scratchDir = mkdtempSync(join(tmpdir(), "gagar-run-policy-scratch-"));
    const config = join(dir, "gagar.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        tasks: TASK,
        rollouts: {
          source: "policy",
          baseUrl: server.baseURL,
          model: "policy-under-test",
          apiKeyEnv: "TEST_POLICY_KEY",
          maxTurns: 20,
          concurrency: 3,
          commandTimeoutSec: 20,
          workspaceBytes: 32 * 2 ** 20,
          scratchDir,
        },
        groupSize: 3,
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
    expect(stderr).not.toMatch(/MaxListenersExceededWarning/);
    expect(code, stderr).toBe(0);

    const first = server.requests[0]!;
    expect(first.headers.authorization).toBe("Bearer sk-test-123");
    expect(first.body).toMatchObject({ model: "policy-under-test", logprobs: true, return_token_ids: true });

    // The step is complete: batch, transcripts and tokens written; nothing left in the scratch folder.
    const runId = stderr.match(/step 0 of run (\S+)/)![1]!;
    const stepDir = join(dir, "out", "runs", runId, "step-0000");
    expect(readdirSync(stepDir).sort()).toEqual([
      "batch.jsonl",
      "batch.parquet",
      "tokens.jsonl",
      "transcripts.jsonl",
    ]);
    expect(readdirSync(scratchDir)).toEqual([]);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(scratchDir);
    expect(stdout).toMatch(/pass rate 67%/);

    const rows = readFileSync(join(stepDir, "batch.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => BatchRow.parse(JSON.parse(l)));
    const transcripts = new Map(
      readFileSync(join(stepDir, "transcripts.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .map((t) => [`${t.groupId}/${t.candidateId}`, t.trajectory]),
    );
    const partOf = (row: BatchRow): Part => {
      const messages = transcripts.get(`${row.groupId}/${row.candidateId}`).messages;
      const assistant = messages.find((m: { role: string }) => m.role === "assistant");
      return assistant.tool_calls[0].id.split("-").slice(0, -1).join("-");
    };
    const byPart = new Map(rows.map((r) => [partOf(r), r]));
    expect(new Set(byPart.keys())).toEqual(new Set(PARTS));
    expect(byPart.get("clumsy")).toMatchObject({
      passed: true,
      finishReason: "submit",
      turns: MISTAKES.length + 3,
    });
    expect(byPart.get("quota")).toMatchObject({ passed: true, finishReason: "workspace_full", turns: 3 });
    expect(byPart.get("gives-up")).toMatchObject({ passed: false, finishReason: "submit", turns: 1 });
    for (const row of rows) expect(row.advantage > 0).toBe(row.passed);

    // Each mistake was answered with an error the model could act on, then the fix and the tests ran.
    const clumsy = transcripts.get(`${byPart.get("clumsy")!.groupId}/${byPart.get("clumsy")!.candidateId}`);
    const answers = new Map<string, string>(
      clumsy.messages
        .filter((m: { role: string }) => m.role === "tool")
        .map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content]),
    );
    for (const [k, mistake] of MISTAKES.entries()) expect(answers.get(`clumsy-${k}`)).toMatch(mistake.answer);
    expect(answers.get(`clumsy-${MISTAKES.length}`)).toBe("Edited tinyini/parser.py: replaced 1 occurrence.");
    expect(answers.get(`clumsy-${MISTAKES.length + 1}`)).toMatch(/passed/);
    const quota = transcripts.get(`${byPart.get("quota")!.groupId}/${byPart.get("quota")!.candidateId}`);
    const quotaAnswers = quota.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    expect(quotaAnswers[1].trim()).toBe(String(32 * 2 ** 20));
    expect(quotaAnswers[2]).toMatch(/No space left on device\nstopped$/);
    expect(quota.turnTokens).toBeUndefined();

    // Tokens: every row of a rollout the server answered has a reference into tokens.jsonl, and the
    // decoder in docs/verl.md rebuilds exactly what the server tokenized and sampled.
    const sampled = new Set(
      server.requests
        .filter((r) => r.sampled)
        .map((r) => JSON.stringify([r.sampled!.promptTokenIds, r.sampled!.tokenIds, r.sampled!.logprobs])),
    );
    const tokensFile = join(stepDir, "tokens.jsonl");
    const stored = new Map(
      readFileSync(tokensFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { groupId: string; candidateId: string; turnTokens: StoredTurn[] })
        .map((t) => [`${t.groupId}/${t.candidateId}`, t.turnTokens]),
    );
    // tokens.jsonl is the run store's record of them, as a resumed step would rewrite it.
    const db = new Database(join(dir, "out", "gagar.sqlite"), { readonly: true });
    try {
      const candidates = db.prepare("SELECT group_id, id, trajectory FROM candidates").all() as Array<{
        group_id: string;
        id: string;
        trajectory: string;
      }>;
      for (const c of candidates)
        expect(JSON.parse(c.trajectory).turnTokens).toEqual(stored.get(`${c.group_id}/${c.id}`));
    } finally {
      db.close();
    }
    const decoded = new Map(decodeWithDocsSnippet(tokensFile).map((d) => [d.key, d]));
    for (const row of rows) {
      const key = `${row.groupId}/${row.candidateId}`;
      expect(row.tokensRef).toBe(`runs/${runId}/step-0000/tokens.jsonl#${key}`);
      const turns = stored.get(key)!;
      expect(turns).toHaveLength(row.turns);
      // Prompts after the first are stored as what the tools added, not the whole conversation again.
      for (const turn of turns.slice(1))
        expect(turn.promptReused).toBeGreaterThan(turn.promptTokenIds.length);
      const { turns: rebuilt, stream } = decoded.get(key)!;
      for (const turn of rebuilt) expect(sampled).toContain(JSON.stringify(turn));
      // One stream: the first prompt, then the replies (mask 1, their logprobs) and what came between.
      const last = rebuilt.at(-1)!;
      expect([...stream.prompt_ids, ...stream.response_ids]).toEqual([...last[0], ...last[1]]);
      expect(stream.response_ids.filter((_, i) => stream.response_mask[i] === 1)).toEqual(
        rebuilt.flatMap((t) => t[1]),
      );
      expect(stream.rollout_logprobs.filter((_, i) => stream.response_mask[i] === 1)).toEqual(
        rebuilt.flatMap((t) => t[2]),
      );
    }
  }, 180_000);
});
