import type { SandboxBackend } from "../../sandbox/types.ts";

export interface ShellToolContext {
  sandbox: SandboxBackend;
  /** Host directory mounted at /workspace (the command's working directory). */
  workspace: string;
  timeoutMs: number;
  /** Bytes the command may print before the sandbox kills it. */
  outputCapBytes: number;
}

/**
 * The longest command accepted, in bytes. The command travels as one argv string, and Linux refuses
 * any single argument over 128 KiB (MAX_ARG_STRLEN) when the sandbox starts; below that with room to
 * spare, and far above any command a person would type (a long script belongs in a file).
 */
export const MAX_COMMAND_BYTES = 100 * 1024;

/**
 * Environment of the agent's commands on top of the sandbox's base (PATH, HOME=/tmp, …): no pager
 * or terminal that would wait for input, and an identity for `git commit`.
 */
const SHELL_ENV: Record<string, string> = {
  TERM: "dumb",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_AUTHOR_NAME: "agent",
  GIT_AUTHOR_EMAIL: "agent@gagar.invalid",
  GIT_COMMITTER_NAME: "agent",
  GIT_COMMITTER_EMAIL: "agent@gagar.invalid",
};

/**
 * Runs the agent's command as `bash -c` inside the sandbox, stderr merged into stdout in order.
 * The command is passed as an argument to an inner bash, never spliced into script text, so its
 * own line numbers in error messages stay right. The result text follows the recorded transcripts:
 * the output, then `[exit code: N]` when it failed, or a note when it was killed.
 */
export async function runShellTool(ctx: ShellToolContext, command: string): Promise<string> {
  // Commands no process could be started with are the agent's mistake, answered before the sandbox.
  if (command.includes("\0")) return "Error: the command contains a NUL byte, which no shell command can.";
  const bytes = Buffer.byteLength(command);
  if (bytes > MAX_COMMAND_BYTES) {
    return `Error: the command is ${bytes} bytes; at most ${MAX_COMMAND_BYTES} are accepted. Write long scripts to a file with write_file and run the file.`;
  }
  const result = await ctx.sandbox.run({
    argv: ["/bin/bash", "-c", 'exec 2>&1; exec /bin/bash -c "$1"', "bash", command],
    workspace: ctx.workspace,
    env: SHELL_ENV,
    timeoutMs: ctx.timeoutMs,
    outputCapBytes: ctx.outputCapBytes,
  });
  // stdout carries the command's stdout and stderr; the run's own stderr holds only the sandbox
  // wrapper's messages (e.g. when it is killed), which are not the command's output.
  let text = result.stdout.replace(/\n+$/, "");
  const note = result.timedOut
    ? `[timed out after ${ctx.timeoutMs / 1000} s; the command was killed]`
    : result.outputCapped
      ? `[the command printed more than ${ctx.outputCapBytes} bytes and was killed]`
      : result.exitCode === null
        ? `[killed by ${result.signal ?? "a signal"}]`
        : result.exitCode !== 0
          ? `[exit code: ${result.exitCode}]`
          : "";
  if (note) text += `${text ? "\n\n" : ""}${note}`;
  return text || "(no output)";
}
