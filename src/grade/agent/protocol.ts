import { z } from "zod";
import { Severity } from "../../contracts/finding.ts";
import type { ToolSpec } from "../../llm/chat-model.ts";

/**
 * Grader tool protocol v2 (docs/grader-protocol.md). A grader model is trained on these names and
 * argument shapes, so any change to them is a new protocol version. v2 added `run_probe`, offered only
 * when the group's task pack is known.
 */
export const PROTOCOL_VERSION = 2;
/** Protocol versions whose transcripts the SFT export still reads (v1 is v2 without run_probe). */
export const READABLE_PROTOCOL_VERSIONS = [1, 2] as const;

const candidate = {
  type: "string",
  description: "a candidate label (A, B, …); omit for the base repository",
};
const label = { type: "string", description: "a candidate label (A, B, …)" };

export const TOOL_SPECS: ToolSpec[] = [
  {
    name: "list_files",
    description:
      "List the files under a directory of the repository, with a candidate's patch applied if one is given.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "directory relative to the repository root; default the root" },
        candidate,
      },
      additionalProperties: false,
    },
  },
  {
    name: "read_file",
    description:
      "Read a file (numbered lines) from the repository, with a candidate's patch applied if one is given.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        candidate,
        start_line: { type: "integer", minimum: 1 },
        end_line: { type: "integer", minimum: 1 },
      },
      required: ["path"],
      additionalProperties: false,
    },
  },
  {
    name: "search",
    description:
      "Search file contents for a regular expression (or literal text), under an optional path, in the base repository or a candidate's version.",
    parameters: {
      type: "object",
      properties: { pattern: { type: "string" }, path: { type: "string" }, candidate },
      required: ["pattern"],
      additionalProperties: false,
    },
  },
  {
    name: "view_patch",
    description: "Show a candidate's full patch (git diff).",
    parameters: {
      type: "object",
      properties: { candidate: label },
      required: ["candidate"],
      additionalProperties: false,
    },
  },
  {
    name: "compare_patches",
    description:
      "Show how two candidates' results differ: files only one of them changes, and a diff of the files both change.",
    parameters: {
      type: "object",
      properties: { a: label, b: label },
      required: ["a", "b"],
      additionalProperties: false,
    },
  },
  {
    name: "view_test_results",
    description: "Show the verifier's test results for a candidate.",
    parameters: {
      type: "object",
      properties: { candidate: label },
      required: ["candidate"],
      additionalProperties: false,
    },
  },
  {
    name: "submit_ranking",
    description:
      "Finish: rank every candidate exactly once, best tier first; candidates of equal quality share a tier. Call it once, alone or after your last tool calls.",
    parameters: {
      type: "object",
      properties: {
        ranking: { type: "array", items: { type: "array", items: { type: "string" }, minItems: 1 } },
        findings: {
          type: "object",
          description: "label → problems found in that candidate",
          additionalProperties: {
            type: "array",
            items: {
              type: "object",
              properties: {
                kind: { type: "string" },
                severity: { type: "string", enum: Severity.options },
                file: { type: "string" },
                line: { type: "integer", minimum: 0 },
                message: { type: "string" },
              },
              required: ["kind", "severity", "message"],
            },
          },
        },
        rationale: { type: "string" },
      },
      required: ["ranking", "rationale"],
      additionalProperties: false,
    },
  },
];

export const SUBMIT_TOOL = "submit_ranking";
export const RUN_PROBE_TOOL = "run_probe";
/** The subject name of the task's reference fix in run_probe (labels are single capitals, never this). */
export const REFERENCE_SUBJECT = "reference";
export const MAX_PROBE_CODE_CHARS = 4000;

/** run_probe: offered only when the group's task pack (hidden tests, environment, reference) is known. */
export const RUN_PROBE_SPEC: ToolSpec = {
  name: RUN_PROBE_TOOL,
  description:
    "Run code in the sandbox against candidates' patched repositories (and the task's reference fix, as \"reference\"), as the body of one test in a module beside the task's hidden tests, with the task's environment and a small time limit. Give an expression, or a few statements in the task's language (imports included); the last expression's value and each assertion's operands are recorded instead of checked, and how the code ended (returned, or the exception's type). Returns what each candidate produced, so you can compare them on inputs the tests do not try.",
  parameters: {
    type: "object",
    properties: {
      code: { type: "string", description: "an expression or a few statements, at most 4000 characters" },
      candidates: {
        type: "array",
        items: { type: "string" },
        minItems: 1,
        description: 'labels (A, B, …) and/or "reference"; default every candidate and the reference',
      },
    },
    required: ["code"],
    additionalProperties: false,
  },
};

const candidateArg = z.string().min(1).optional();
/** Argument schemas of the inspection tools, keyed by tool name. */
export const TOOL_ARGS = {
  list_files: z.strictObject({ path: z.string().optional(), candidate: candidateArg }),
  read_file: z.strictObject({
    path: z.string().min(1),
    candidate: candidateArg,
    start_line: z.number().int().min(1).optional(),
    end_line: z.number().int().min(1).optional(),
  }),
  search: z.strictObject({
    pattern: z.string().min(1),
    path: z.string().optional(),
    candidate: candidateArg,
  }),
  view_patch: z.strictObject({ candidate: z.string().min(1) }),
  compare_patches: z.strictObject({ a: z.string().min(1), b: z.string().min(1) }),
  view_test_results: z.strictObject({ candidate: z.string().min(1) }),
  run_probe: z.strictObject({
    code: z
      .string()
      .refine((c) => c.trim() !== "", "is empty: send an expression or a few statements")
      .refine((c) => c.length <= MAX_PROBE_CODE_CHARS, `is longer than ${MAX_PROBE_CODE_CHARS} characters`),
    candidates: z.array(z.string().min(1)).min(1).optional(),
  }),
} as const;
export type InspectionTool = keyof typeof TOOL_ARGS;

const SubmissionFinding = z.strictObject({
  kind: z.string().min(1),
  severity: Severity,
  file: z.string().optional(),
  line: z.number().int().nonnegative().optional(),
  message: z.string(),
});

const SubmissionShape = z.strictObject({
  ranking: z.array(z.array(z.string()).min(1, "a tier must not be empty")),
  findings: z.record(z.string(), z.array(SubmissionFinding)).default({}),
  rationale: z.string(),
});
export type Submission = z.output<typeof SubmissionShape>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses a tool call's raw JSON arguments, naming the problem in words a model can act on. */
export function parseJsonArguments(raw: string): ParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(raw.trim() === "" ? "{}" : raw) };
  } catch (e) {
    return {
      ok: false,
      error: `arguments are not valid JSON (${(e as Error).message}); send one JSON object`,
    };
  }
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join(".") : "arguments"}: ${i.message}`)
    .join("; ");
}

/**
 * Validates a submit_ranking call against the labels of this session: well-formed, every label
 * ranked exactly once, findings only about known labels. Errors go back to the model verbatim.
 */
export function parseSubmission(raw: string, labels: string[]): ParseResult<Submission> {
  const json = parseJsonArguments(raw);
  if (!json.ok) return json;
  const shape = SubmissionShape.safeParse(json.value);
  if (!shape.success) return { ok: false, error: `invalid submit_ranking: ${describeZodError(shape.error)}` };
  const problems: string[] = [];
  const known = new Set(labels);
  const seen = new Set<string>();
  for (const l of shape.data.ranking.flat()) {
    if (!known.has(l)) problems.push(`"${l}" is not a candidate`);
    else if (seen.has(l)) problems.push(`"${l}" is ranked more than once`);
    seen.add(l);
  }
  const missing = labels.filter((l) => !seen.has(l));
  if (missing.length) problems.push(`not ranked: ${missing.join(", ")}`);
  for (const l of Object.keys(shape.data.findings))
    if (!known.has(l)) problems.push(`findings for unknown candidate "${l}"`);
  if (problems.length) {
    return {
      ok: false,
      error: `invalid submit_ranking: ${problems.join("; ")}. Rank each of ${labels.join(", ")} exactly once.`,
    };
  }
  return { ok: true, value: shape.data };
}
