import { PROBE_CHANNEL_ENV } from "./plan.ts";

/**
 * The environment every probe run of a task gets on top of the task's own: where the helpers write,
 * and the runtime's per-process randomisation pinned, so that two runs of the same code observe the
 * same values. Python salts its string hashes per process: the order of a set of strings, and
 * whatever follows from it (marshmallow counts every field it creates, and how many it creates while
 * loading depends on that order), differs from run to run. Comparing a candidate's one run with the
 * reference's two would take that for a difference of behaviour. A task that sets the seed keeps its own.
 */
export const PINNED_RANDOMNESS: Readonly<Record<string, string>> = { PYTHONHASHSEED: "0" };

export function probeRunEnv(
  taskEnv: Readonly<Record<string, string>> | undefined,
  channel: string,
): Record<string, string> {
  const pinned = Object.entries(PINNED_RANDOMNESS).filter(([name]) => taskEnv?.[name] === undefined);
  return { ...Object.fromEntries(pinned), [PROBE_CHANNEL_ENV]: channel };
}
