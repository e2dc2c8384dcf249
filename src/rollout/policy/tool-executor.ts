import type { ToolCall } from "../../llm/chat-model.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { runFileTool } from "./file-tools.ts";
import { runShellTool } from "./shell-tool.ts";
import { parseToolCall } from "./tool-specs.ts";
import { truncateMiddle } from "./truncate.ts";

export interface ToolOutcome {
  /** The tool message content the model sees (already truncated). */
  output: string;
  /** The call was a valid `submit`: the rollout ends. */
  submitted: boolean;
}

export type ToolExecutor = (call: ToolCall) => Promise<ToolOutcome>;

export interface ToolExecutorOptions {
  sandbox: SandboxBackend;
  /** Host directory of the rollout's workspace. */
  workspace: string;
  /** Host directory for gagar's per-call files, outside the workspace. */
  controlDir: string;
  commandTimeoutMs: number;
  commandOutputCapBytes: number;
  fileToolTimeoutMs: number;
  fileReadLimitBytes: number;
  /** Bytes of one result shown to the model. */
  toolOutputCapBytes: number;
}

export const SUBMITTED = "Submitted. Your changes have been recorded.";

/**
 * Executes one tool call of the agent in its sandboxed workspace. Every tool, the file tools
 * included, runs inside the sandbox; nothing reads or writes the workspace from the host.
 * Malformed calls and tool-level failures come back as text for the model; only infrastructure
 * failures (the sandbox could not run) reject.
 */
export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  let sequence = 0;
  return async (call) => {
    const parsed = parseToolCall(call);
    if (!parsed.ok) return { output: parsed.error, submitted: false };
    const invocation = parsed.invocation;
    let output: string;
    switch (invocation.tool) {
      case "submit":
        return { output: SUBMITTED, submitted: true };
      case "shell":
        output = await runShellTool(
          {
            sandbox: options.sandbox,
            workspace: options.workspace,
            timeoutMs: options.commandTimeoutMs,
            outputCapBytes: options.commandOutputCapBytes,
          },
          invocation.command,
        );
        break;
      default:
        output = await runFileTool(
          {
            sandbox: options.sandbox,
            workspace: options.workspace,
            controlDir: options.controlDir,
            timeoutMs: options.fileToolTimeoutMs,
            readLimitBytes: options.fileReadLimitBytes,
          },
          invocation,
          sequence++,
        );
    }
    return { output: truncateMiddle(output, options.toolOutputCapBytes), submitted: false };
  };
}
