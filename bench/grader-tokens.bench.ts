/**
 * Tokens the agent grader spends per group: groupwise (one session sees all passing candidates)
 * versus grading each candidate alone, and versus pairwise comparison — measured on the
 * OpenAI-compatible test server, which reports prompt tokens from what it actually received
 * (characters/4 of messages + tools) and completion tokens from what it sent.
 *
 * Every mode runs the same scripted reviewer: first turn, view_patch for every candidate it was
 * given (parallel tool calls); second turn, submit_ranking. Only the session layout differs.
 *
 *   npx tsx bench/grader-tokens.bench.ts [GROUPS.jsonl]
 *
 * The default groups are the synthetic evaluation set (test/fixtures/grade/synthetic: 8 tasks,
 * 9–11 passing candidates each, with their repositories); pass any groups file to measure others,
 * e.g. real multi-system groups. A relative task.workspace is resolved against the file's folder.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Group, Group as GroupSchema } from "../src/contracts/group.ts";
import { createAgentGrader } from "../src/grade/agent/agent-grader.ts";
import { CandidateTrees } from "../src/grade/agent/candidate-trees.ts";
import { buildUserMessage, SYSTEM_PROMPT } from "../src/grade/agent/prompt.ts";
import { TOOL_SPECS } from "../src/grade/agent/protocol.ts";
import { runSession } from "../src/grade/agent/session.ts";
import { labelsInPrompt, rankBySize } from "../src/grade/agent/testing/grader-fixtures.ts";
import { createToolContext } from "../src/grade/agent/tool-context.ts";
import { executeTool } from "../src/grade/agent/toolbox.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { renderTable } from "../src/io/table.ts";
import type { ChatModel } from "../src/llm/chat-model.ts";
import { createOpenAIChatModel } from "../src/llm/openai-chat-model.ts";
import { SYNTHETIC_GROUPS } from "../test/fixtures/grade/synthetic/build.ts";
import {
  type ReceivedRequest,
  startOpenAITestServer,
  toolCallsReply,
} from "../test/support/openai-test-server.ts";

const DEFAULT_GROUPS = SYNTHETIC_GROUPS;
const budget = { maxTurns: 4, maxTokens: 1_000_000, timeoutMs: 60_000 };

function reviewer(request: ReceivedRequest) {
  const messages = request.body.messages;
  const labels = labelsInPrompt(messages[1]!.content!);
  const results = messages.filter((m) => m.role === "tool");
  if (!results.length)
    return toolCallsReply(...labels.map((candidate) => ({ name: "view_patch", arguments: { candidate } })));
  const patches = new Map(labels.map((l, i) => [l, results[i]!.content!]));
  return toolCallsReply({
    name: "submit_ranking",
    arguments: { ranking: rankBySize(patches), rationale: "smallest first" },
  });
}

/** One session over exactly `candidates` (the agent grader skips groups of one, so per-candidate runs the session directly). */
async function session(model: ChatModel, group: Group, candidates: Group["candidates"]): Promise<void> {
  const trees = new CandidateTrees(group.task.workspace, new Map(candidates.map((c) => [c.id, c.patch])));
  const labels = candidates.map((_, i) => String.fromCharCode(65 + i));
  const ctx = createToolContext(
    trees,
    candidates.map((candidate, i) => ({ label: labels[i]!, candidate })),
  );
  try {
    const record = await runSession({
      model,
      system: SYSTEM_PROMPT,
      user: buildUserMessage(group, ctx, { maxTurns: budget.maxTurns }),
      tools: TOOL_SPECS,
      labels,
      execute: (call) => executeTool(ctx, call),
      budget,
      maxOutputTokens: 4096,
    });
    if (record.outcome.kind !== "submitted")
      throw new Error(`bench session failed: ${record.outcome.reason}`);
  } finally {
    await trees.dispose();
  }
}

function pairsOf<T>(items: T[]): Array<[T, T]> {
  return items.flatMap((a, i) => items.slice(i + 1).map((b) => [a, b] as [T, T]));
}

export async function run(groupsFile: string = DEFAULT_GROUPS): Promise<void> {
  const file = groupsFile;
  const groups = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const group = GroupSchema.parse(JSON.parse(l));
      const workspace = group.task.workspace;
      if (workspace && !isAbsolute(workspace)) group.task.workspace = resolve(dirname(file), workspace);
      return group;
    });
  const server = await startOpenAITestServer(reviewer);
  const model = createOpenAIChatModel({ baseURL: server.baseURL, model: "bench" });
  const staticGrader = createStaticGrader();
  const grader = (passes: number) => createAgentGrader({ model, staticGrader, passes, budget });

  const modes: Array<[string, (g: Group) => Promise<unknown>]> = [
    ["groupwise, 1 pass", (g) => grader(1).grade(g)],
    ["groupwise, 3 passes", (g) => grader(3).grade(g)],
    [
      "per candidate (n sessions)",
      async (g) => {
        for (const c of g.candidates.filter((x) => x.passed)) await session(model, g, [c]);
      },
    ],
    [
      "pairwise (n(n-1)/2 sessions)",
      async (g) => {
        for (const pair of pairsOf(g.candidates.filter((x) => x.passed))) await session(model, g, pair);
      },
    ],
  ];
  const rows: Array<Array<string | number>> = [];
  let groupwise = 0;
  try {
    for (const [name, gradeGroup] of modes) {
      server.requests.length = 0;
      server.usage.promptTokens = 0;
      server.usage.completionTokens = 0;
      for (const g of groups) await gradeGroup(g);
      const n = groups.length;
      const total = (server.usage.promptTokens + server.usage.completionTokens) / n;
      if (!groupwise) groupwise = total;
      rows.push([
        name,
        Math.round(server.usage.promptTokens / n),
        Math.round(server.usage.completionTokens / n),
        Math.round(total),
        Number((server.requests.length / n).toFixed(1)),
        `${(total / groupwise).toFixed(2)}×`,
      ]);
    }
  } finally {
    await server.close();
  }
  const sizes = groups.map((g) => g.candidates.filter((c) => c.passed).length);
  console.log(
    `${groups.length} groups from ${file}; passing candidates per group ${Math.min(...sizes)}–${Math.max(...sizes)} (mean ${(sizes.reduce((s, x) => s + x, 0) / sizes.length).toFixed(1)})`,
  );
  console.log(
    renderTable(
      ["mode", "prompt/group", "completion/group", "tokens/group", "requests/group", "vs groupwise"],
      rows,
    ),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run(process.argv[2]);
