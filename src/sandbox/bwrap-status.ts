/**
 * Reads bwrap's --json-status-fd stream: one JSON object per line, `child-pid` once the sandbox is set
 * up and `exit-code` (shell encoding: 128+N for signal N) when the program exits. The absence of
 * `exit-code` is how a setup failure (bad bind, exec of a missing program) is told apart from a program
 * that exited 1 — bwrap itself exits 1 in both cases.
 */
export function outcomeFromBwrapStatus(
  status: string,
): { exitCode: number | null; signal: NodeJS.Signals | null } | undefined {
  for (const line of status.split("\n")) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    const code = (record as Record<string, unknown> | null)?.["exit-code"];
    if (typeof code === "number" && Number.isInteger(code)) return { exitCode: code, signal: null };
  }
  return undefined;
}
