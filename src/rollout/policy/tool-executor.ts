import { ConfigError, SandboxError } from "../../errors.ts";
import type { ToolCall } from "../../llm/chat-model.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { runFileTool } from "./file-tools.ts";
import { runShellTool } from "./shell-tool.ts";
import { type PolicyToolInvocation, parseToolCall } from "./tool-specs.ts";
import { truncateMiddle } from "./truncate.ts";

export interface ToolOutcome {
  /** The tool message content the model sees (already truncated). */
  output: string;
  /** The call was a valid `submit`: the rollout ends. */
  submitted: boolean;
}

/**
 * Runs one call. `timeLeftMs` is what remains of the rollout's wall-clock budget: a command or file
 * tool gets no more than that, so a rollout cannot run long past its cap inside one call.
 */
export type ToolExecutor = (call: ToolCall, budget?: { timeLeftMs?: number }) => Promise<ToolOutcome>;

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
 *
 * Whatever goes wrong with a call comes back as text for the model — a malformed call, a tool-level
 * failure, a tool process that died, an argument no process can be started with — so that a
 * model's mistake never fails the step. Only a SandboxError (the sandbox itself could not run, or
 * gagar could not write its own files) and a ConfigError (settings no call could run with) reject:
 * they say nothing about the policy, and would fail every call alike.
 */
export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  let sequence = 0;
  const run = async (invocation: Exclude<PolicyToolInvocation, { tool: "submit" }>, timeLeftMs: number) => {
    const within = (limitMs: number) => Math.max(1, Math.min(limitMs, timeLeftMs));
    if (invocation.tool === "shell") {
      return runShellTool(
        {
          sandbox: options.sandbox,
          workspace: options.workspace,
          timeoutMs: within(options.commandTimeoutMs),
          outputCapBytes: options.commandOutputCapBytes,
        },
        invocation.command,
      );
    }
    return runFileTool(
      {
        sandbox: options.sandbox,
        workspace: options.workspace,
        controlDir: options.controlDir,
        timeoutMs: within(options.fileToolTimeoutMs),
        readLimitBytes: options.fileReadLimitBytes,
      },
      invocation,
      sequence++,
    );
  };
  return async (call, budget = {}) => {
    const parsed = parseToolCall(call);
    if (!parsed.ok) return { output: parsed.error, submitted: false };
    const invocation = parsed.invocation;
    if (invocation.tool === "submit") return { output: SUBMITTED, submitted: true };
    let output: string;
    try {
      output = await run(invocation, budget.timeLeftMs ?? Number.POSITIVE_INFINITY);
    } catch (error) {
      if (error instanceof SandboxError || error instanceof ConfigError) throw error;
      output = `Error: ${invocation.tool} failed: ${(error as Error)?.message ?? String(error)}`;
    }
    return { output: truncateMiddle(output, options.toolOutputCapBytes), submitted: false };
  };
}
