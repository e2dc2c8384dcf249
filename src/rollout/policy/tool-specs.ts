import { z } from "zod";
import type { ToolCall, ToolSpec } from "../../llm/chat-model.ts";

const pathSchema = { type: "string", description: "Relative to /workspace, or absolute inside it." };

/**
 * The policy agent's tool protocol: the same names and argument shapes as the recorded transcripts
 * in `examples/rollouts/`, so that live and replayed rollouts look alike to graders and trainers.
 */
export const POLICY_TOOLS: ToolSpec[] = [
  {
    name: "shell",
    description:
      "Run a bash command with /workspace as the working directory; stdout and stderr are returned " +
      "(long output is truncated). Each command runs in a fresh shell with a time limit and no network.",
    parameters: objectSchema({ command: { type: "string", description: "The bash command to run." } }),
  },
  {
    name: "read_file",
    description: "Show a file with line numbers.",
    parameters: objectSchema({ path: pathSchema }),
  },
  {
    name: "write_file",
    description: "Create or overwrite a file (parent directories are created).",
    parameters: objectSchema({ path: pathSchema, content: { type: "string" } }),
  },
  {
    name: "str_replace",
    description: "Replace the single exact occurrence of `old` in a file with `new`.",
    parameters: objectSchema({ path: pathSchema, old: { type: "string" }, new: { type: "string" } }),
  },
  {
    name: "submit",
    description: "Finish. The final diff of /workspace against the original checkout is your answer.",
    parameters: objectSchema({}),
  },
];

/** A tool call whose arguments were checked: what the executor runs. */
export type PolicyToolInvocation =
  | { tool: "shell"; command: string }
  | { tool: "read_file"; path: string }
  | { tool: "write_file"; path: string; content: string }
  | { tool: "str_replace"; path: string; old: string; new: string }
  | { tool: "submit" };

const ARGUMENTS = {
  shell: z.object({ command: z.string().min(1, "must not be empty") }),
  read_file: z.object({ path: z.string().min(1, "must not be empty") }),
  write_file: z.object({ path: z.string().min(1, "must not be empty"), content: z.string() }),
  str_replace: z.object({ path: z.string().min(1, "must not be empty"), old: z.string(), new: z.string() }),
  submit: z.object({}),
} as const;

type ToolName = keyof typeof ARGUMENTS;

/**
 * Checks one call against the protocol. A malformed call is the model's mistake, not a failure of
 * the run: the error text goes back to the model as the tool's result so that it can correct itself.
 */
export function parseToolCall(
  call: ToolCall,
): { ok: true; invocation: PolicyToolInvocation } | { ok: false; error: string } {
  if (!Object.hasOwn(ARGUMENTS, call.name)) {
    return {
      ok: false,
      error: `Error: unknown tool ${JSON.stringify(call.name)}. The tools are: ${Object.keys(ARGUMENTS).join(", ")}.`,
    };
  }
  const name = call.name as ToolName;
  let args: unknown;
  try {
    // Some servers send an empty string for a call without arguments.
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return {
      ok: false,
      error: `Error: the arguments of ${name} are not valid JSON (${(error as Error).message}). Send a JSON object.`,
    };
  }
  const parsed = ARGUMENTS[name].safeParse(args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "arguments"}: ${i.message}`,
    );
    return { ok: false, error: `Error: invalid arguments for ${name}: ${problems.join("; ")}.` };
  }
  return { ok: true, invocation: { tool: name, ...parsed.data } as PolicyToolInvocation };
}

function objectSchema(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}
