import { describe, expect, it } from "vitest";
import type { Group } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { ChatRequest } from "../../llm/chat-model.ts";
import { ScriptedChatModel, type ScriptedReply } from "../../llm/scripted-model.ts";
import type { Grader } from "../types.ts";
import { createAgentGrader } from "./agent-grader.ts";
import { selectSftExamples } from "./sft-export.ts";
import { labelsInPrompt, makeGroup, SYSTEM_IDS } from "./testing/grader-fixtures.ts";
import { GraderTranscript, type GraderTranscriptRecord } from "./transcript.ts";

const staticGrader: Grader = {
  name: "static",
  version: "test",
  async grade(group: Group): Promise<Ranking> {
    return {
      schemaVersion: 1,
      groupId: group.id,
      ranking: [[SYSTEM_IDS.clean], [SYSTEM_IDS.noisy], [SYSTEM_IDS.hack]],
      findings: {
        [SYSTEM_IDS.hack]: [
          { kind: "special-casing", severity: "critical", message: "literal from the test" },
        ],
      },
      grader: { name: "static", version: "test" },
    };
  },
};

/** Grades with `reply` and returns the transcripts as the export reads them back from disk. */
async function transcriptsOf(
  reply: (request: ChatRequest) => ScriptedReply,
  passes = 3,
): Promise<GraderTranscript[]> {
  const records: GraderTranscriptRecord[] = [];
  const grader = createAgentGrader({
    model: new ScriptedChatModel(reply),
    staticGrader,
    passes,
    budget: { maxTurns: 3 },
    transcripts: { write: async (r) => void records.push(r) },
  });
  await grader.grade(makeGroup());
  return records.map((r) => GraderTranscript.parse(JSON.parse(JSON.stringify(r))));
}

const labels = (request: ChatRequest) => labelsInPrompt(request.messages[1]!.content as string);
const submit = (ranking: string[][]): ScriptedReply => ({
  toolCalls: [{ name: "submit_ranking", arguments: { ranking, rationale: "r" } }],
});
/**
 * Views every patch (plus one bad label, to be corrected), then ranks by a fixed preference over
 * ids, recognizing each candidate by its patch.
 */
function prefers(order: string[]) {
  return (request: ChatRequest): ScriptedReply => {
    const shown = labels(request);
    if (request.messages.length === 2) {
      return {
        toolCalls: ["Z", ...shown].map((candidate) => ({ name: "view_patch", arguments: { candidate } })),
      };
    }
    const patches = request.messages.filter((m) => m.role === "tool").slice(1);
    const idOf = (l: string) => {
      const patch = patches[shown.indexOf(l)]!.content as string;
      return patch.includes("DEBUG")
        ? SYSTEM_IDS.noisy
        : patch.includes("(1, 0)")
          ? SYSTEM_IDS.hack
          : SYSTEM_IDS.clean;
    };
    return submit([...shown].sort((a, b) => order.indexOf(idOf(a)) - order.indexOf(idOf(b))).map((l) => [l]));
  };
}

describe("selectSftExamples", () => {
  it("keeps consistent sessions as OpenAI chat fine-tuning examples with tools, corrected turns weighted 0", async () => {
    const transcripts = await transcriptsOf(prefers([SYSTEM_IDS.clean, SYSTEM_IDS.noisy, SYSTEM_IDS.hack]));
    expect(transcripts[0]!.result.consistency).toBe(1);
    const { examples, sessions, dropped } = selectSftExamples(transcripts);
    expect(sessions).toBe(3);
    expect(examples).toHaveLength(3);
    expect(Object.values(dropped).every((n) => n === 0)).toBe(true);
    const [first] = examples;
    expect(first!.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
      "tool",
      "assistant",
    ]);
    expect(first!.messages[2]).toMatchObject({ role: "assistant", weight: 0 });
    expect(first!.messages[3]).toMatchObject({
      role: "tool",
      content: expect.stringMatching(/^error: unknown candidate "Z"/),
    });
    expect(first!.messages[7]).not.toHaveProperty("weight");
    expect(first!.messages[7]).toMatchObject({ tool_calls: [{ function: { name: "submit_ranking" } }] });
    expect(first!.tools.map((t) => t.type === "function" && t.function.name)).toContain("submit_ranking");
    expect(JSON.stringify(examples)).not.toContain(SYSTEM_IDS.clean);
  });

  it("drops sessions that put a candidate with a critical static finding in the top tier", async () => {
    const transcripts = await transcriptsOf(prefers([SYSTEM_IDS.hack, SYSTEM_IDS.clean, SYSTEM_IDS.noisy]));
    const { examples, dropped } = selectSftExamples(transcripts);
    expect(examples).toHaveLength(0);
    expect(dropped["contradicts-static"]).toBe(3);
  });

  it("drops groups whose passes disagree, unless the threshold allows them", async () => {
    const transcripts = await transcriptsOf((request) => submit(labels(request).map((l) => [l])));
    expect(transcripts[0]!.result.consistency).toBeCloseTo(1 / 3);
    expect(selectSftExamples(transcripts).dropped.inconsistent).toBe(3);
    const loose = selectSftExamples(transcripts, { minConsistency: 0.3, includeFallbacks: false });
    // Some of those orders put the critical candidate first; the rest are kept.
    expect(loose.examples.length + loose.dropped["contradicts-static"]).toBe(3);
    expect(loose.examples.length).toBeGreaterThan(0);
  });

  it("drops failed sessions always, and a fallback group's valid sessions unless asked to keep them", async () => {
    let call = 0;
    const transcripts = await transcriptsOf(
      () =>
        call++ === 0 ? submit([["A"], ["B"], ["C"]]) : { toolCalls: [{ name: "list_files", arguments: {} }] },
      3,
    );
    expect(transcripts[0]!.result.fallback?.from).toBe("agent");
    expect(
      selectSftExamples(transcripts, { minConsistency: 0, includeFallbacks: false }).dropped,
    ).toMatchObject({
      "no-submission": 2,
      fallback: 1,
    });
    const kept = selectSftExamples(transcripts, { minConsistency: 0, includeFallbacks: true });
    expect(kept.examples.length + kept.dropped["contradicts-static"]).toBe(1);
  });
});
