import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxError } from "../../errors.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";

/** Where every backend shows the workspace to the programs it runs. */
const WORKSPACE = "/workspace";

/** The trusted script that performs file tools inside the sandbox (see its header for why). */
export const FILE_TOOL_SCRIPT = fileURLToPath(new URL("./file-tool.mjs", import.meta.url));

export type FileToolCall =
  | { tool: "read_file"; path: string }
  | { tool: "write_file"; path: string; content: string }
  | { tool: "str_replace"; path: string; old: string; new: string };

export interface FileToolContext {
  sandbox: SandboxBackend;
  /** Host directory mounted at /workspace. */
  workspace: string;
  /** Host directory for call files: gagar's, never inside the workspace. */
  controlDir: string;
  timeoutMs: number;
  readLimitBytes: number;
}

/**
 * Runs one file tool in the sandbox: the call (arguments included, however large) goes in as a
 * read-only mounted JSON file, the script and the node binary that runs it are mounted read-only
 * too, so nothing the agent left in the workspace can change what runs. Returns the text for the
 * model: the tool's answer, or, when the tool process died without one (killed at its time limit,
 * out of memory, crashed), an `Error: …` saying so — the agent may well have caused that (a huge
 * file, a FIFO it made), so it is its to see, never a failed step. Only a sandbox that cannot run at
 * all (a SandboxError from the backend) or a control directory gagar cannot write reject.
 */
export async function runFileTool(
  ctx: FileToolContext,
  call: FileToolCall,
  sequence: number,
): Promise<string> {
  const { tool, ...args } = call;
  const callFile = join(ctx.controlDir, `file-call-${sequence}.json`);
  try {
    await writeFile(
      callFile,
      JSON.stringify({ tool, args, readLimitBytes: ctx.readLimitBytes, workspace: WORKSPACE }),
      { mode: 0o644 },
    );
  } catch (error) {
    throw new SandboxError(
      `cannot write the file tool's call to ${callFile}: ${(error as Error).message}`,
      true,
    );
  }
  try {
    const result = await ctx.sandbox.run({
      argv: ["/gagar/node", "/gagar/file-tool.mjs", "/gagar/call.json", WORKSPACE],
      workspace: ctx.workspace,
      readOnly: [
        { source: process.execPath, target: "/gagar/node" },
        { source: FILE_TOOL_SCRIPT, target: "/gagar/file-tool.mjs" },
        { source: callFile, target: "/gagar/call.json" },
      ],
      timeoutMs: ctx.timeoutMs,
      // JSON escaping can double a file's bytes; four times the read limit always fits.
      outputCapBytes: 4 * ctx.readLimitBytes + 64 * 1024,
    });
    const answer = parseAnswer(result.stdout);
    if (answer && !result.timedOut && !result.outputCapped) return answer.output;
    const how = result.timedOut
      ? `was stopped at its ${ctx.timeoutMs / 1000} s time limit`
      : result.outputCapped
        ? "printed more than its output limit and was stopped"
        : result.exitCode === null
          ? `was killed by ${result.signal ?? "a signal"}`
          : `exited with code ${result.exitCode}`;
    const detail = result.stderr.trim().split("\n").slice(-5).join("\n").slice(-1000);
    return `Error: ${tool} ${how} before it could answer; nothing is known about its effect on ${args.path}.${detail ? `\n${detail}` : ""}`;
  } finally {
    await rm(callFile, { force: true });
  }
}

function parseAnswer(stdout: string): { ok: boolean; output: string } | undefined {
  try {
    const value = JSON.parse(stdout) as unknown;
    if (value && typeof value === "object" && typeof (value as { output?: unknown }).output === "string") {
      return value as { ok: boolean; output: string };
    }
  } catch {
    // not an answer
  }
  return undefined;
}
