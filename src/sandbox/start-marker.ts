/**
 * The last link of the unshare and unsandboxed chains (bwrap reports the same through its JSON status):
 * a shell that tells the supervisor on fd 3 that the program is about to start, closes fd 3 so the
 * program cannot write there, then runs it in the foreground and exits with its status. The marker
 * separates "the program exited 1" from "the chain failed before the program ran" (an infrastructure
 * error, never the candidate's fault). As pid 1 of a pid namespace the shell also reaps orphans.
 */
export const START_SCRIPT = [
  'command -v -- "$1" >/dev/null 2>&1 || { printf "gagar: %s: command not found in the sandbox\\n" "$1" >&2; exit 127; }',
  'printf "started\\n" >&3',
  "exec 3>&-",
  '"$@"',
  "exit $?",
].join("\n");

export const START_MARKER = "started";

/** The program's exit as reported by the chain, or undefined when the start marker never came. */
export function outcomeFromStartMarker(
  status: string,
  exit: { exitCode: number | null; signal: NodeJS.Signals | null },
): { exitCode: number | null; signal: NodeJS.Signals | null } | undefined {
  return status.split("\n").includes(START_MARKER) ? exit : undefined;
}
