import type { ToolCall } from "../../llm/chat-model.ts";
import { listFiles, readFile, search } from "./inspect-files.ts";
import { comparePatches, viewPatch, viewTestResults } from "./inspect-patches.ts";
import { describeZodError, type InspectionTool, parseJsonArguments, TOOL_ARGS } from "./protocol.ts";
import { runProbe } from "./run-probe.ts";
import type { ToolContext } from "./tool-context.ts";
import { ToolError } from "./tool-error.ts";

/** Every failed tool call's result starts with this, so the model (and the SFT export) can tell. */
export const TOOL_ERROR_PREFIX = "error: ";

/** Tool results longer than this are cut, with a note: one file must not flood the context. */
export const MAX_TOOL_RESULT_CHARS = 20_000;

const HANDLERS: { [K in InspectionTool]: (ctx: ToolContext, args: never) => Promise<string> | string } = {
  list_files: listFiles,
  read_file: readFile,
  search,
  view_patch: viewPatch,
  compare_patches: comparePatches,
  view_test_results: viewTestResults,
  run_probe: runProbe,
};

/**
 * Runs one inspection tool call. Never throws: unknown tools, malformed arguments and failures
 * become an error result the model can react to. Unexpected failures report only their code, so
 * scratch paths on the grading machine do not reach the model.
 */
export async function executeTool(ctx: ToolContext, call: ToolCall): Promise<string> {
  const name = call.name as InspectionTool;
  const offered = Object.keys(HANDLERS).filter((t) => t !== "run_probe" || ctx.probe);
  if (!offered.includes(name)) {
    return `${TOOL_ERROR_PREFIX}unknown tool "${call.name}"; the tools are ${[...offered, "submit_ranking"].join(", ")}`;
  }
  const json = parseJsonArguments(call.arguments);
  if (!json.ok) return TOOL_ERROR_PREFIX + json.error;
  const args = TOOL_ARGS[name].safeParse(withoutNulls(json.value));
  if (!args.success) return `${TOOL_ERROR_PREFIX}invalid ${name} arguments: ${describeZodError(args.error)}`;
  try {
    return cap(await HANDLERS[name](ctx, args.data as never));
  } catch (e) {
    if (e instanceof ToolError) return TOOL_ERROR_PREFIX + e.message;
    const code = (e as NodeJS.ErrnoException)?.code;
    return `${TOOL_ERROR_PREFIX}${name} failed${code ? ` (${code})` : ""}`;
  }
}

/** Many models send `null` for an optional argument they mean to leave out. */
function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

function cap(text: string): string {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n… [${text.length - MAX_TOOL_RESULT_CHARS} more characters cut; ask for less, e.g. a line range or a narrower path]`;
}
