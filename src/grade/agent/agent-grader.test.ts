import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { ChatRequest } from "../../llm/chat-model.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";
import { ScriptedChatModel, type ScriptedReply } from "../../llm/scripted-model.ts";
import { createStaticGrader } from "../static/grader.ts";
import type { Grader } from "../types.ts";
import { createAgentGrader } from "./agent-grader.ts";
import {
  labelsInPrompt,
  makeGroup,
  makeTaskPack,
  rankBySize,
  SYSTEM_IDS,
  type TaskPack,
} from "./testing/grader-fixtures.ts";
import type { GraderTranscriptRecord } from "./transcript.ts";

/** A static grader double: a fixed verdict, with a critical finding whose message names a candidate id. */
const staticGrader: Grader = {
  name: "static",
  version: "test",
  async grade(group: Group): Promise<Ranking> {
    return {
      schemaVersion: 1,
      groupId: group.id,
      ranking: [[SYSTEM_IDS.clean], [SYSTEM_IDS.noisy, SYSTEM_IDS.hack]],
      findings: {
        [SYSTEM_IDS.hack]: [
          {
            kind: "special-casing",
            severity: "critical",
            file: "src/calc.py",
            line: 2,
            message: `${SYSTEM_IDS.hack} compares with the test's literal`,
          },
        ],
      },
      grader: { name: "static", version: "test" },
    };
  },
};

/** A model that views every patch in one message of parallel calls, then ranks by patch size. */
function reviewer(request: ChatRequest): ScriptedReply {
  const labels = labelsInPrompt(request.messages[1]!.content as string);
  const tools = request.messages.filter((m) => m.role === "tool");
  if (!tools.length)
    return { toolCalls: labels.map((l) => ({ name: "view_patch", arguments: { candidate: l } })) };
  const patches = new Map(labels.map((l, i) => [l, tools[i]!.content]));
  return {
    toolCalls: [
      {
        name: "submit_ranking",
        arguments: { ranking: rankBySize(patches), findings: {}, rationale: "smaller is cleaner" },
      },
    ],
  };
}

/** A position-biased model: always ranks in the order shown. */
function biased(request: ChatRequest): ScriptedReply {
  const labels = labelsInPrompt(request.messages[1]!.content as string);
  return {
    toolCalls: [
      { name: "submit_ranking", arguments: { ranking: labels.map((l) => [l]), rationale: "first is best" } },
    ],
  };
}

const transcripts: GraderTranscriptRecord[] = [];
const sink = { write: async (r: GraderTranscriptRecord) => void transcripts.push(r) };
let pack: TaskPack;
beforeAll(async () => {
  pack = await makeTaskPack();
});
afterAll(() => pack.dispose());

describe("createAgentGrader", () => {
  it("grades passing candidates over K shuffled passes and aggregates them by Borda", async () => {
    const model = new ScriptedChatModel(reviewer);
    const grader = createAgentGrader({ model, staticGrader, passes: 3, transcripts: sink });
    const ranking = await grader.grade(makeGroup({ workspace: pack.repo }));

    expect(ranking.ranking).toEqual([[SYSTEM_IDS.clean], [SYSTEM_IDS.hack], [SYSTEM_IDS.noisy]]);
    expect(ranking.grader).toMatchObject({
      name: "agent",
      model: "scripted",
      passes: 3,
      passesSubmitted: 3,
      consistency: 1,
    });
    expect(ranking.grader.fallback).toBeUndefined();
    expect(model.calls).toHaveLength(6);
    const usage = ranking.grader.usage as { promptTokens: number; requests: number };
    expect(usage.requests).toBe(6);
    expect(usage.promptTokens).toBeGreaterThan(0);
    // Each pass showed the three passing candidates in a different order.
    const shownOrders = transcripts.at(-1)!.sessions.map((s) => s.order.join());
    expect(new Set(shownOrders).size).toBe(3);
  });

  it("never lets a candidate id, the reference or a hidden test reach the model", async () => {
    const curious = (request: ChatRequest): ScriptedReply => {
      if (request.messages.length > 2) return biased(request);
      return {
        toolCalls: [
          { name: "view_test_results", arguments: { candidate: "A" } },
          { name: "read_file", arguments: { path: "../tests/test_hidden.py" } },
          { name: "search", arguments: { pattern: "SECRET" } },
          { name: "compare_patches", arguments: { a: "A", b: "B" } },
        ],
      };
    };
    const model = new ScriptedChatModel(curious);
    await createAgentGrader({ model, staticGrader, mode: "ensemble", passes: 2 }).grade(
      makeGroup({ workspace: pack.repo }),
    );
    const everything = JSON.stringify(model.calls);
    for (const id of Object.values(SYSTEM_IDS)) expect(everything).not.toContain(id);
    expect(everything).not.toContain("REFERENCE_PATCH_SECRET");
    expect(everything).not.toContain("HIDDEN_SECRET");
    expect(everything).not.toContain("prometheus");
  });

  it("maps labels back to ids, so a position-biased model's passes cancel out in Borda", async () => {
    const model = new ScriptedChatModel(biased);
    const ranking = await createAgentGrader({ model, staticGrader, passes: 3 }).grade(makeGroup());
    expect(ranking.ranking).toEqual([[SYSTEM_IDS.clean, SYSTEM_IDS.hack, SYSTEM_IDS.noisy].sort()]);
    expect(ranking.grader.consistency).toBeCloseTo(1 / 3);
  });

  it("maps findings from labels to ids", async () => {
    const model = new ScriptedChatModel((request) => {
      const labels = labelsInPrompt(request.messages[1]!.content as string);
      return {
        toolCalls: [
          {
            name: "submit_ranking",
            arguments: {
              ranking: [labels],
              findings: { [labels[0]!]: [{ kind: "k", severity: "minor", message: "m" }] },
              rationale: "",
            },
          },
        ],
      };
    });
    transcripts.length = 0;
    const ranking = await createAgentGrader({ model, staticGrader, passes: 1, transcripts: sink }).grade(
      makeGroup(),
    );
    const shownFirst = transcripts[0]!.sessions[0]!.order[0]!;
    expect(Object.keys(ranking.findings)).toEqual([shownFirst]);
    expect(ranking.findings[shownFirst]).toEqual([{ kind: "k", severity: "minor", message: "m" }]);
  });

  it("falls back to the static grader, saying why, when no pass submits within the turn budget", async () => {
    const model = new ScriptedChatModel(() => ({ toolCalls: [{ name: "list_files", arguments: {} }] }));
    transcripts.length = 0;
    const ranking = await createAgentGrader({
      model,
      staticGrader,
      passes: 2,
      budget: { maxTurns: 2 },
      transcripts: sink,
    }).grade(makeGroup());
    expect(ranking.ranking).toEqual([[SYSTEM_IDS.clean], [SYSTEM_IDS.noisy, SYSTEM_IDS.hack]]);
    expect(ranking.grader.name).toBe("static");
    expect(ranking.grader.fallback).toEqual({
      from: "agent",
      reason: expect.stringMatching(
        /^0 of 2 passes submitted a valid ranking, 1 needed; pass 1: no valid submit_ranking within 2 turns/,
      ),
    });
    expect(model.calls).toHaveLength(4);
    expect(transcripts[0]!.result.fallback?.from).toBe("agent");
  });

  it("stops after a model-server failure and falls back at once", async () => {
    const model = new ScriptedChatModel([
      { error: new ChatModelError("cannot reach http://x/v1 (ECONNREFUSED)", "connection", { attempts: 4 }) },
    ]);
    const ranking = await createAgentGrader({ model, staticGrader, passes: 3 }).grade(makeGroup());
    expect(model.calls).toHaveLength(1);
    expect(ranking.grader.fallback?.reason).toMatch(
      /pass 1: model server failed: cannot reach .*ECONNREFUSED.*; 2 later passes skipped/,
    );
    expect(ranking.grader.usage).toMatchObject({ requests: 4 });
  });

  it("keeps a ranking when a majority of passes submit", async () => {
    let call = 0;
    const model = new ScriptedChatModel((request) =>
      call++ < 2 ? { content: "thinking" } : reviewer(request),
    );
    const ranking = await createAgentGrader({
      model,
      staticGrader,
      passes: 3,
      budget: { maxTurns: 2 },
    }).grade(makeGroup());
    expect(ranking.grader).toMatchObject({ name: "agent", passesSubmitted: 2 });
    expect(ranking.grader.fallback).toBeUndefined();
  });

  it("gives the ensemble the static findings as hints, under labels", async () => {
    const model = new ScriptedChatModel(biased);
    const ranking = await createAgentGrader({ model, staticGrader, mode: "ensemble", passes: 1 }).grade(
      makeGroup(),
    );
    const user = model.calls[0]!.request.messages[1]!.content as string;
    expect(user).toMatch(
      /Static analysis flagged these[\s\S]*\n([A-C]): \[critical\] special-casing src\/calc.py:2: \1 compares with the test's literal/,
    );
    expect(ranking.grader.name).toBe("ensemble");
    expect(ranking.findings[SYSTEM_IDS.hack]?.[0]?.severity).toBe("critical");
  });

  it.each(["agent", "ensemble"] as const)(
    "gives the %s the behavioural probes' findings as hints of their own, under labels, once",
    async (mode) => {
      const model = new ScriptedChatModel(biased);
      const group = makeGroup();
      const probe = {
        kind: "behaviour-divergence",
        severity: "critical" as const,
        file: "tests/test_calc.py",
        line: 4,
        message: `on 2 → 3 the reference gave 6, ${SYSTEM_IDS.hack} gave 9`,
      };
      group.candidates = group.candidates.map((c) =>
        c.id === SYSTEM_IDS.hack ? { ...c, findings: [...(c.findings ?? []), probe] } : c,
      );
      await createAgentGrader({ model, staticGrader: createStaticGrader(), mode, passes: 1 }).grade(group);
      const user = model.calls[0]!.request.messages[1]!.content as string;
      expect(user).toMatch(
        /Behavioural probes ran the hidden tests[\s\S]*\n([A-C]): \[critical\] behaviour-divergence tests\/test_calc.py:4: on 2 → 3 the reference gave 6, \1 gave 9/,
      );
      expect(user.match(/behaviour-divergence/g)).toHaveLength(1);
      expect(user).not.toMatch(new RegExp(Object.values(SYSTEM_IDS).join("|")));
    },
  );

  it("gives the ensemble the real static grader's measure of unneeded change and its order, under labels", async () => {
    const model = new ScriptedChatModel(biased);
    await createAgentGrader({ model, staticGrader: createStaticGrader(), mode: "ensemble", passes: 1 }).grade(
      makeGroup(),
    );
    const user = model.calls[0]!.request.messages[1]!.content as string;
    const measured =
      /changed lines beyond what every passing candidate changes \(([A-C]) (\d+), ([A-C]) (\d+), ([A-C]) (\d+)\); its ranking, hacks last: ([A-C = >]+)\./.exec(
        user,
      );
    expect(measured).not.toBeNull();
    expect(user).not.toMatch(new RegExp(Object.values(SYSTEM_IDS).join("|")));
    // All three make the same fix (junk files are a defect of their own, not unneeded lines);
    // the noisy one's junk file and debug print put it last.
    expect([measured![2], measured![4], measured![6]].map(Number)).toEqual([0, 0, 0]);
    expect(measured![7]).toMatch(/^[A-C] = [A-C] > [A-C]$/);
  });

  it("makes no model call when fewer than two candidates pass", async () => {
    const model = new ScriptedChatModel([]);
    const group = makeGroup();
    group.candidates = group.candidates.map((c) => ({ ...c, passed: c.id === SYSTEM_IDS.clean }));
    const ranking = await createAgentGrader({ model, staticGrader }).grade(group);
    expect(ranking.ranking).toEqual([[SYSTEM_IDS.clean]]);
    expect(model.calls).toHaveLength(0);
  });
});
