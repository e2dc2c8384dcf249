import { SandboxError } from "../errors.ts";

/**
 * What the in-sandbox runner (sandbox-runner.py) does for one candidate, in the form it reads: NUL-separated
 * tokens, because the runner avoids importing json (its startup is paid per candidate). Layout:
 *
 *   gagar-plan-1 · killOthers (0|1) · reportCapBytes · n applyArgv… · n bytecodeDirs… ·
 *   n runs × (label · reportFd · n argv…)
 */
export interface RunnerPlan {
  killOthers: boolean;
  reportCapBytes: number;
  applyArgv: string[];
  bytecodeDirs: string[];
  runs: { label: string; reportFd: number; argv: string[] }[];
}

export const PLAN_MAGIC = "gagar-plan-1";

export function encodeRunnerPlan(plan: RunnerPlan): string {
  const tokens: string[] = [PLAN_MAGIC, plan.killOthers ? "1" : "0", String(plan.reportCapBytes)];
  const list = (items: string[]) => tokens.push(String(items.length), ...items);
  list(plan.applyArgv);
  list(plan.bytecodeDirs);
  tokens.push(String(plan.runs.length));
  for (const run of plan.runs) {
    tokens.push(run.label, String(run.reportFd));
    list(run.argv);
  }
  const bad = tokens.find((t) => t.includes("\0"));
  if (bad !== undefined)
    throw new SandboxError(`runner plan token contains a NUL byte: ${JSON.stringify(bad)}`, false);
  return tokens.join("\0");
}
