import { z } from "zod";
import type { SafeRead } from "../run/safe-read.ts";

/** status.json, what the trusted runner (run/sandbox-runner.py) writes about the run, as the verdict reads it. */
export const RunnerStatus = z.object({
  version: z.literal(1),
  token: z.string().nullable(),
  dumpable: z.number(),
  apply: z.object({ exitCode: z.number(), output: z.string(), durationMs: z.number() }).nullable(),
  removedBytecode: z.number(),
  runs: z.array(
    z.object({
      label: z.string(),
      exitCode: z.number().nullable(),
      signal: z.number().nullable(),
      reportBytes: z.number(),
      reportTruncated: z.boolean(),
      channelHeld: z.boolean(),
      survivors: z.number(),
      durationMs: z.number(),
      /** The runner stopped the command at the task's timeout (its report so far is kept). */
      timedOut: z.boolean().optional(),
      guardBytes: z.number().nullable().optional(),
      guardTruncated: z.boolean().optional(),
    }),
  ),
});
export type RunnerStatus = z.infer<typeof RunnerStatus>;

/** The run's status.json, or what is wrong with it. */
export function parseStatus(read: SafeRead): RunnerStatus | string {
  if (!read.ok) return read.reason;
  let json: unknown;
  try {
    json = JSON.parse(read.data.toString("utf8"));
  } catch {
    return "is not JSON";
  }
  const parsed = RunnerStatus.safeParse(json);
  return parsed.success ? parsed.data : "has an unexpected shape";
}
