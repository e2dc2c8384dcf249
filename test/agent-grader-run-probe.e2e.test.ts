/**
 * The agent grader's run_probe (grader protocol v2) end to end: the real `openai` client against a
 * local HTTP server speaking chat completions, whose "model" calls run_probe on a probe fixture's task
 * pack (test/fixtures/probe/pytest-shortdate-years) run in the real sandbox by Verifier.runPlan, on an
 * honest candidate, a hard-coding and the reference; and the SFT export keeps the calls and results.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Group } from "../src/contracts/group.ts";
import { createAgentGrader } from "../src/grade/agent/agent-grader.ts";
import { toSftExample } from "../src/grade/agent/sft-export.ts";
import { labelsInPrompt } from "../src/grade/agent/testing/grader-fixtures.ts";
import { createTranscriptDir, GraderTranscript } from "../src/grade/agent/transcript.ts";
import { createStaticGrader } from "../src/grade/static/grader.ts";
import { createOpenAIChatModel } from "../src/llm/openai-chat-model.ts";
import { packProber } from "../src/pipeline/probed-grading.ts";
import type { TaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import {
  type OpenAITestServer,
  type ReceivedRequest,
  type ServerReply,
  startOpenAITestServer,
  toolCallsReply,
} from "./support/openai-test-server.ts";
import { probeFixturePack } from "./support/probe-fixtures.ts";
import { bwrapForTests } from "./support/sandbox.ts";

const FIXTURE = "pytest-shortdate-years";
const HONEST = "pivot-constant";
const HARD_CODED = "special-cases";
const PROBE = "from shortdate import expand_year\nexpand_year(51)";

const root = mkdtempSync(join(tmpdir(), "gagar-run-probe-"));
let verifier: Verifier;
let server: OpenAITestServer;
let pack: TaskPack;
let group: Group;

beforeAll(async () => {
  verifier = new Verifier({ sandbox: await bwrapForTests() });
  const built = probeFixturePack(root, FIXTURE, {
    failToPass: ["tests/test_parse.py::test_last_century_two_digit_year"],
  });
  pack = built.pack;
  group = {
    schemaVersion: 1,
    id: "run-probe",
    task: { id: pack.spec.id, statement: pack.spec.statement, language: "python", workspace: pack.repoDir },
    candidates: [HONEST, HARD_CODED].map((id) => ({
      id,
      patch: built.patches.get(id)!,
      passed: true,
      reward: 1,
    })),
  };
  server = await startOpenAITestServer(reviewer);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await verifier?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A reviewer over the wire: probes every candidate and the reference, sends bad calls too, then ranks. */
function reviewer(request: ReceivedRequest): ServerReply {
  const messages = request.body.messages;
  const labels = labelsInPrompt(messages[1]!.content!);
  if (!messages.some((m) => m.role === "tool")) {
    return toolCallsReply(
      { name: "run_probe", arguments: { code: PROBE, candidates: [...labels, "reference"] } },
      { name: "run_probe", arguments: { code: PROBE, candidates: ["Z"] } },
      { name: "run_probe", arguments: { code: "   " } },
      { name: "run_probe", arguments: { code: "x".repeat(4001) } },
      { name: "run_probe", arguments: { code: "def (" } },
    );
  }
  return toolCallsReply({
    name: "submit_ranking",
    arguments: { ranking: labels.map((l) => [l]), findings: {}, rationale: "probed" },
  });
}

it("runs the model's code on each chosen candidate in the sandbox, and the values tell the hard-coding apart", async () => {
  const transcripts = join(root, "transcripts");
  const grader = createAgentGrader({
    model: createOpenAIChatModel({ baseURL: server.baseURL, model: "reviewer", apiKey: "test" }),
    staticGrader: createStaticGrader(),
    passes: 1,
    transcripts: createTranscriptDir(transcripts),
  });
  // The sandbox comes the way the pipeline hands it over (probed-grading.ts).
  const sandbox = await packProber((id) => (id === pack.spec.id ? pack : undefined), verifier, {
    budgetSec: 60,
    jobs: 1,
    runProbe: { callSec: 30, passSec: 90 },
  }).sandbox!(pack.spec.id);
  expect(sandbox).toMatchObject({ pack, callSec: 30, passSec: 90 });
  const ranking = await grader.grade(group, { probeSandbox: sandbox! });
  expect(ranking.grader.fallback).toBeUndefined();

  const offered = server.requests[0]!.body.tools!.map((t) => t.function.name);
  expect(offered).toContain("run_probe");
  const last = server.requests.at(-1)!.body.messages;
  const results = last.filter((m) => m.role === "tool").map((m) => m.content as string);
  expect(results).toHaveLength(5);
  const [probe, unknown, empty, long, unparsable] = results as [string, string, string, string, string];
  // Which label is which candidate in this pass: the prompt's order is the transcript's `order`.
  const lines = new Map(
    probe
      .split("\n")
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1)]),
  );
  const transcript = GraderTranscript.parse(
    JSON.parse(readFileSync(join(transcripts, readdirSync(transcripts)[0]!), "utf8").split("\n")[0]!),
  );
  expect(transcript.protocolVersion).toBe(2);
  const order = transcript.sessions[0]!.order;
  const labels = labelsInPrompt(last[1]!.content!);
  const labelOf = (id: string) => labels[order.indexOf(id)]!;
  expect(lines.get(labelOf(HONEST))).toContain(`value={"t":"int","v":1951}`);
  expect(lines.get("reference")).toContain(`value={"t":"int","v":1951}`);
  expect(lines.get(labelOf(HARD_CODED))).toContain(`value={"t":"int","v":2051}`);
  expect(unknown).toMatch(/^error: unknown candidate "Z"/);
  expect(empty).toMatch(/^error: invalid run_probe arguments: code: is empty/);
  expect(long).toMatch(/^error: invalid run_probe arguments: code: is longer than 4000 characters/);
  expect(unparsable).toMatch(/^error: code does not parse as Python/);

  // The SFT export keeps run_probe among the tools, its calls and their results.
  const sft = toSftExample(transcript, transcript.sessions[0]!);
  expect(sft.tools.map((t) => ("function" in t ? t.function.name : t.type))).toContain("run_probe");
  const text = JSON.stringify(sft.messages);
  expect(text).toContain("run_probe");
  expect(text).toContain('{\\"t\\":\\"int\\",\\"v\\":2051}');
}, 300_000);

it("is not offered, and refused, without the task pack", async () => {
  server.requests.length = 0;
  const grader = createAgentGrader({
    model: createOpenAIChatModel({ baseURL: server.baseURL, model: "reviewer", apiKey: "test" }),
    staticGrader: createStaticGrader(),
    passes: 1,
  });
  await grader.grade(group);
  expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).not.toContain("run_probe");
  const results = server.requests.at(-1)!.body.messages.filter((m) => m.role === "tool");
  expect(results[0]!.content).toMatch(/^error: unknown tool "run_probe"/);
}, 120_000);
