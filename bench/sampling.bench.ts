import { sampleInformativeGroups } from "../src/sampling/dynamic-sampler.ts";
import { seededRandom } from "../src/sampling/random.ts";
import type { SelectionPolicy, TaskHistory } from "../src/sampling/task-selection.ts";
import { report } from "./stats.ts";

const TASKS = 400;
const STEPS = 30;
const BATCH_GROUPS = 32;
const GROUP_SIZE = 8;

/**
 * Simulated pass rates shaped like a code-agent curriculum: many tasks the policy never solves,
 * some it always solves, the rest spread out (Beta(0.5, 0.5)-like via a squared uniform).
 */
function passRates(seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: TASKS }, () => {
    const u = random();
    if (u < 0.45) return 0;
    if (u < 0.6) return 1;
    const x = random();
    return random() < 0.5 ? x * x : 1 - x * x;
  });
}

async function simulate(policy: SelectionPolicy, seed: number): Promise<number> {
  const rates = passRates(seed);
  const ids = rates.map((_, i) => `task-${i}`);
  const rateOf = new Map(ids.map((id, i) => [id, rates[i]!]));
  const history = new Map<string, TaskHistory>();
  const random = seededRandom(seed + 1);
  let rollouts = 0;
  let kept = 0;
  for (let step = 0; step < STEPS; step++) {
    const result = await sampleInformativeGroups(
      {
        taskIds: ids,
        history,
        random,
        generate: async (taskId) => {
          const p = rateOf.get(taskId)!;
          const rewards = Array.from({ length: GROUP_SIZE }, () => (random() < p ? 1 : 0));
          return { group: null, taskId, rewards, passes: rewards.filter((r) => r > 0).length };
        },
      },
      {
        batchGroups: BATCH_GROUPS,
        maxRounds: 50,
        oversample: 1.5,
        onShortfall: "partial",
        selection: { policy, groupSize: GROUP_SIZE, explorationFloor: 0.02 },
      },
    );
    rollouts += result.rolloutsGenerated;
    kept += result.kept.length;
    for (const g of result.groups) {
      const h = history.get(g.taskId) ?? { attempts: 0, passes: 0 };
      history.set(g.taskId, { attempts: h.attempts + g.rewards.length, passes: h.passes + g.passes });
    }
  }
  return rollouts / kept;
}

export async function run(): Promise<void> {
  const seeds = [1, 2, 3];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const dapo = mean(await Promise.all(seeds.map((s) => simulate("uniform", s))));
  const aware = mean(await Promise.all(seeds.map((s) => simulate("pass-rate", s))));
  const setup = `${TASKS} tasks, ${STEPS} steps × ${BATCH_GROUPS} groups of ${GROUP_SIZE}`;
  report(`sampling (${setup}): DAPO uniform`, `${dapo.toFixed(1)} rollouts per kept group`);
  report("sampling: pass-rate-aware", `${aware.toFixed(1)} rollouts per kept group`);
  report("sampling: rollouts saved vs DAPO", `${(dapo / aware).toFixed(2)}x fewer`);
}
