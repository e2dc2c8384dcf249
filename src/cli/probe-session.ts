import { InvalidArgumentError } from "commander";
import { DEFAULTS } from "../config/defaults.ts";
import { LIMITS } from "../config/limits.ts";
import { packProber, type StepProber } from "../pipeline/probed-grading.ts";
import { selectBackend } from "../sandbox/select.ts";
import type { TaskPack } from "../verify/pack/task-pack.ts";
import { Verifier } from "../verify/verifier.ts";

/**
 * Behavioural probes for the commands that grade groups outside a run (`gagar grade --tasks`,
 * `gagar grader eval --tasks`): a verifier session on the strongest sandbox available, probing the
 * groups whose task is in `packs`.
 */
export async function probeSession(
  packs: ReadonlyMap<string, TaskPack>,
  budgetSec: number,
): Promise<{ prober: StepProber; close(): Promise<void> }> {
  const warn = (line: string) => process.stderr.write(`gagar: ${line}\n`);
  const verifier = new Verifier({ sandbox: await selectBackend("auto", { warn }), warn });
  return {
    prober: packProber((id) => packs.get(id), verifier, { budgetSec, jobs: DEFAULTS.verifyJobs }),
    close: () => verifier.close(),
  };
}

/** A budget in seconds: positive, and at most a day (LIMITS.sessionSeconds, as the config's probes.budgetSec). */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > LIMITS.sessionSeconds.max)
    throw new InvalidArgumentError(
      `expected a positive number of seconds, at most ${LIMITS.sessionSeconds.max} (${LIMITS.sessionSeconds.why})`,
    );
  return n;
}
