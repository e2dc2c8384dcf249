import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Finding } from "../../contracts/finding.ts";
import type { Group } from "../../contracts/group.ts";
import { type SCHEMA_VERSION, SchemaVersion } from "../../contracts/group.ts";
import type { Ranking } from "../../contracts/ranking.ts";
import type { ToolSpec } from "../../llm/chat-model.ts";
import { type PassRecord, passUsage } from "./aggregate-passes.ts";
import { PROTOCOL_VERSION, READABLE_PROTOCOL_VERSIONS } from "./protocol.ts";

/**
 * The record of grading one group with the agent: every session (pass) with its full message
 * history, usage, latency and outcome, plus what the SFT export needs to judge it (the aggregate
 * result, consistency across passes, and which candidates the static grader found critical).
 * One JSONL line per group; the label → id mapping of each pass is `order` (label i = order[i]).
 */
const Usage = z.looseObject({ promptTokens: z.number(), completionTokens: z.number(), requests: z.number() });

const ToolCallRecord = z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() });
export const TranscriptMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: z.string() }),
  z.looseObject({ role: z.literal("user"), content: z.string() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z.array(ToolCallRecord).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);

const Submitted = z.looseObject({
  kind: z.literal("submitted"),
  submission: z.looseObject({
    ranking: z.array(z.array(z.string())),
    findings: z.record(z.string(), z.array(z.looseObject({ severity: z.string() }))),
    rationale: z.string(),
  }),
});
const Failed = z.looseObject({ kind: z.literal("failed"), cause: z.string(), reason: z.string() });

export const TranscriptSession = z.looseObject({
  pass: z.number().int().nonnegative(),
  order: z.array(z.string()),
  messages: z.array(TranscriptMessage),
  turns: z.array(z.looseObject({})),
  usage: Usage,
  latencyMs: z.number(),
  toolErrors: z.number(),
  invalidSubmissions: z.number(),
  outcome: z.discriminatedUnion("kind", [Submitted, Failed]),
});
export type TranscriptSession = z.output<typeof TranscriptSession>;

export const GraderTranscript = z.looseObject({
  schemaVersion: SchemaVersion,
  kind: z.literal("grader-transcript"),
  protocolVersion: z.union(
    READABLE_PROTOCOL_VERSIONS.map((v) => z.literal(v)) as [z.ZodLiteral<1>, z.ZodLiteral<2>],
  ),
  grader: z.string(),
  model: z.string(),
  groupId: z.string(),
  taskId: z.string(),
  startedAt: z.string(),
  tools: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string(),
      parameters: z.record(z.string(), z.unknown()),
    }),
  ),
  /** Candidate ids the static grader gave a critical finding. */
  staticCritical: z.array(z.string()),
  sessions: z.array(TranscriptSession),
  result: z.looseObject({
    ranking: z.array(z.array(z.string())),
    consistency: z.number().nullable(),
    fallback: z.looseObject({ from: z.string(), reason: z.string() }).optional(),
  }),
  usage: Usage,
  latencyMs: z.number(),
});
export type GraderTranscript = z.output<typeof GraderTranscript>;

/** A transcript as the grader writes it (GraderTranscript is the same record as read back). */
export interface GraderTranscriptRecord {
  schemaVersion: typeof SCHEMA_VERSION;
  kind: "grader-transcript";
  protocolVersion: (typeof READABLE_PROTOCOL_VERSIONS)[number];
  grader: string;
  model: string;
  groupId: string;
  taskId: string;
  startedAt: string;
  tools: ToolSpec[];
  staticCritical: string[];
  sessions: PassRecord[];
  result: { ranking: string[][]; consistency: number | null; fallback?: { from: string; reason: string } };
  usage: { promptTokens: number; completionTokens: number; requests: number };
  latencyMs: number;
}

/** The transcript of one graded group. */
export function buildTranscript(input: {
  grader: string;
  model: string;
  group: Group;
  startedAt: number;
  records: PassRecord[];
  ranking: Ranking;
  consistency: number | null;
  staticFindings: Record<string, Finding[]>;
  latencyMs: number;
  /** The tools the sessions were offered (run_probe only with a task pack). */
  tools: ToolSpec[];
}): GraderTranscriptRecord {
  return {
    schemaVersion: 1,
    kind: "grader-transcript",
    protocolVersion: PROTOCOL_VERSION,
    grader: input.grader,
    model: input.model,
    groupId: input.group.id,
    taskId: input.group.task.id,
    startedAt: new Date(input.startedAt).toISOString(),
    tools: input.tools,
    staticCritical: Object.entries(input.staticFindings)
      .filter(([, fs]) => fs.some((f) => f.severity === "critical"))
      .map(([id]) => id),
    sessions: input.records,
    result: {
      ranking: input.ranking.ranking,
      consistency: input.consistency,
      fallback: input.ranking.grader.fallback,
    },
    usage: passUsage(input.records),
    latencyMs: input.latencyMs,
  };
}

/** Where transcripts go; the grader only needs to hand records over. */
export interface TranscriptSink {
  write(record: GraderTranscriptRecord): Promise<void>;
}

/**
 * Appends transcripts to `<dir>/grader-<time>-<pid>.jsonl`, one line per group, in completion order.
 * A new file per run, so concurrent runs into one directory never interleave lines.
 */
export function createTranscriptDir(
  dir: string,
  now: () => number = Date.now,
): TranscriptSink & { path: string } {
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `grader-${stamp}-${process.pid}.jsonl`);
  let queue: Promise<void> = mkdir(dir, { recursive: true }).then(() => undefined);
  return {
    path,
    write(record) {
      queue = queue.then(() => appendFile(path, `${JSON.stringify(record)}\n`));
      return queue;
    },
  };
}
