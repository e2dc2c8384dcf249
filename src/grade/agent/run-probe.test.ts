import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeFixturePack } from "../../../test/support/probe-fixtures.ts";
import { DEBIAN_MOCHA } from "../../../test/support/probe-harness.ts";
import { bwrapForTests } from "../../../test/support/sandbox.ts";
import type { Group } from "../../contracts/group.ts";
import type { ChatRequest } from "../../llm/chat-model.ts";
import { ScriptedChatModel, type ScriptedReply } from "../../llm/scripted-model.ts";
import { packProber, probeThenGrade } from "../../pipeline/probed-grading.ts";
import type { TaskPack } from "../../verify/pack/task-pack.ts";
import { Verifier } from "../../verify/verifier.ts";
import { createStaticGrader } from "../static/grader.ts";
import { createAgentGrader } from "./agent-grader.ts";
import type { ProbeSandbox } from "./run-probe.ts";
import { labelsInPrompt } from "./testing/grader-fixtures.ts";
import type { GraderTranscriptRecord } from "./transcript.ts";

/**
 * run_probe with a scripted model that records its calls, on the node:test probe fixture
 * (test/fixtures/probe/node-test-backoff-cap) run in the real sandbox: an ES module snippet with an
 * import, an assertion and a last expression, on an honest cap and a threshold fitted to the tests.
 */
const FIXTURE = "node-test-backoff-cap";
const HONEST = "clamp-helper";
const FITTED = "attempt-threshold";
const CODE = [
  'import { retryDelay } from "../src/index.js";',
  "assert.equal(retryDelay(2, { max: 300 }), 300);",
  "retryDelay(5, { base: 1, max: 10 }) + retryDelay(1, { max: 150 })",
].join("\n");

const root = mkdtempSync(join(tmpdir(), "gagar-run-probe-unit-"));
let verifier: Verifier;
let pack: TaskPack;
let group: Group;

beforeAll(async () => {
  verifier = new Verifier({ sandbox: await bwrapForTests() });
  const built = probeFixturePack(root, FIXTURE, {
    failToPass: ["test/backoff.test.js::retryDelay > caps the delay at max"],
  });
  pack = built.pack;
  group = {
    schemaVersion: 1,
    id: "run-probe-unit",
    task: {
      id: pack.spec.id,
      statement: pack.spec.statement,
      language: "javascript",
      workspace: pack.repoDir,
    },
    candidates: [HONEST, FITTED].map((id) => ({
      id,
      patch: built.patches.get(id)!,
      passed: true,
      reward: 1,
    })),
  };
}, 120_000);
afterAll(async () => {
  await verifier?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Probes every candidate (the default: and the reference), then ranks in the order shown. */
function prober(request: ChatRequest): ScriptedReply {
  const labels = labelsInPrompt(request.messages[1]!.content as string);
  if (!request.messages.some((m) => m.role === "tool"))
    return { toolCalls: [{ name: "run_probe", arguments: { code: CODE } }] };
  return {
    toolCalls: [
      { name: "submit_ranking", arguments: { ranking: labels.map((l) => [l]), rationale: "probed" } },
    ],
  };
}

async function grade(sandbox: ProbeSandbox) {
  const model = new ScriptedChatModel(prober);
  const transcripts: GraderTranscriptRecord[] = [];
  await createAgentGrader({
    model,
    staticGrader: createStaticGrader(),
    passes: 1,
    transcripts: { write: async (r) => void transcripts.push(r) },
  }).grade(group, { probeSandbox: sandbox });
  const request = model.calls.at(-1)!.request;
  const result = request.messages.find((m) => m.role === "tool")!.content as string;
  const labels = labelsInPrompt(request.messages[1]!.content as string);
  const order = transcripts[0]!.sessions[0]!.order;
  const line = (id: string) =>
    result.split("\n").find((l) => l.startsWith(`${id === "reference" ? id : labels[order.indexOf(id)]}:`));
  return { model, result, line, transcript: transcripts[0]! };
}

describe("run_probe", () => {
  it("runs the snippet on each candidate and the reference, and reports what each produced", async () => {
    const { model, line, transcript } = await grade({ pack, runner: verifier });
    expect(model.calls[0]!.request.tools!.map((t) => t.name)).toContain("run_probe");
    // The honest cap: 2nd retry capped at 300, and 10 + 150 (JavaScript numbers are tagged as their text).
    expect(line(HONEST)).toBe(
      `${line(HONEST)!.split(":")[0]}: value={"t":"num","v":"160"}; a0 v={"t":"num","v":"300"} expected={"t":"num","v":"300"} holds=true; end={"t":"ok"}`,
    );
    expect(line("reference")).toContain('value={"t":"num","v":"160"}; a0 v={"t":"num","v":"300"}');
    // The threshold fitted to the tests caps only from the 3rd retry on.
    expect(line(FITTED)).toContain('value={"t":"num","v":"210"}; a0 v={"t":"num","v":"400"}');
    expect(line(FITTED)).toContain("holds=false");
    expect(transcript.protocolVersion).toBe(2);
    expect(transcript.tools.map((t) => t.name)).toContain("run_probe");
  }, 300_000);

  it("reaches the grader the way the probes do (probeThenGrade), here on a mocha task", async () => {
    const built = probeFixturePack(root, "mocha-duration-units", {
      failToPass: ["test/parse.spec.js::parseDuration > combined units > adds hours and minutes"],
      test: {
        command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
        env: { NODE_PATH: "/usr/share/nodejs" },
      },
    });
    const mochaGroup: Group = {
      schemaVersion: 1,
      id: "run-probe-mocha",
      task: { id: built.pack.spec.id, statement: "", language: "javascript", workspace: built.pack.repoDir },
      candidates: ["unit-loop", "lookup-table"].map((id) => ({
        id,
        patch: built.patches.get(id)!,
        passed: true,
        reward: 1,
      })),
    };
    const code = 'import { parseDuration } from "../lib/index.js";\nparseDuration("2h15m")';
    const model = new ScriptedChatModel((request) =>
      request.messages.some((m) => m.role === "tool")
        ? prober(request)
        : { toolCalls: [{ name: "run_probe", arguments: { code, candidates: ["A", "B", "reference"] } }] },
    );
    const transcripts: GraderTranscriptRecord[] = [];
    const grader = createAgentGrader({
      model,
      staticGrader: createStaticGrader(),
      passes: 1,
      transcripts: { write: async (r) => void transcripts.push(r) },
    });
    const stepProber = packProber((id) => (id === built.pack.spec.id ? built.pack : undefined), verifier, {
      budgetSec: 120,
      jobs: 1,
    });
    await probeThenGrade(grader, mochaGroup, stepProber);
    const request = model.calls.at(-1)!.request;
    const result = request.messages.find((m) => m.role === "tool")!.content as string;
    const order = transcripts[0]!.sessions[0]!.order;
    const line = (subject: string) => result.split("\n").find((l) => l.startsWith(`${subject}:`))!;
    const labelOf = (id: string) => "AB"[order.indexOf(id)]!;
    expect(line("reference")).toContain('value={"t":"num","v":"8100"}');
    expect(line(labelOf("unit-loop"))).toContain('value={"t":"num","v":"8100"}');
    // The table of the tested combinations falls back to the old parser, which reads the first unit only.
    expect(line(labelOf("lookup-table"))).toContain('value={"t":"num","v":"7200"}');
    expect(model.calls[0]!.request.tools!.map((t) => t.name)).toContain("run_probe");
  }, 300_000);

  it("runs nothing once the pass's run_probe time is spent", async () => {
    const { result } = await grade({ pack, runner: verifier, passSec: 0 });
    const lines = result.split("\n").slice(1);
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/: not run: this pass's run_probe time \(0 s\) is spent$/);
  }, 120_000);
});
