import { type AdvantageOptions, computeGroupAdvantages } from "../advantage/group-advantages.ts";
import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import { InvariantError } from "../errors.ts";
import { type Random, seededRandom } from "../sampling/random.ts";
import { type TaskArms, topTierArms } from "./arms.ts";

export type Method = "GRPO" | "GAGAR";
export const METHODS: readonly Method[] = ["GRPO", "GAGAR"];

export interface LengthSettings {
  /** Policy updates. */
  steps: number;
  /** Rollouts per group (n). */
  groupSize: number;
  /** Step size of the REINFORCE update on the logits. */
  learningRate: number;
  /** Base estimator and GAGAR redistribution, exactly as the pipeline computes them. */
  advantage: AdvantageOptions;
}

/** What the policy would do at a step, in expectation over its own distribution, averaged over tasks. */
export interface PolicyPoint {
  step: number;
  /** Expected trajectory tokens of a rollout. */
  tokens: number;
  /** Probability that a rollout passes. */
  passRate: number;
  /** Of the passing probability, the share on the grader's best tier. */
  topTierShare: number;
}

export interface SimulationRun {
  method: Method;
  seed: number;
  /** One point before the first update (step 0) and one after each update. */
  points: PolicyPoint[];
  /** Final probabilities of each task's arms. */
  finalPolicy: number[][];
}

/**
 * A tabular softmax policy per task over that task's recorded rollouts, trained with REINFORCE on
 * group advantages. Each step, for every task: draw a group of n arms from the policy, reward each
 * with its real verdict, compute advantages with the pipeline's own code (GRPO, or GRPO plus GAGAR
 * redistribution by the static grader's tiers of the distinct passing arms drawn), and move the
 * logits by η · (1/n) Σ_j A_j ∇ log π(a_j), where ∇_θ log π(a) = e_a − π.
 *
 * The only randomness is the draws, from `seededRandom(seed)`: GRPO and GAGAR with the same seed
 * start from the same stream (common random numbers), so their difference is the method's.
 * Pure: no I/O, deterministic in (tasks, method, seed, settings).
 */
export function simulateLength(
  tasks: readonly TaskArms[],
  method: Method,
  seed: number,
  settings: LengthSettings,
): SimulationRun {
  if (!tasks.length) throw new InvariantError("the simulation needs at least one task");
  const random = seededRandom(seed);
  const logits = tasks.map((t) => new Float64Array(t.arms.length));
  const tops = tasks.map((t) => new Set(topTierArms(t)));
  const points: PolicyPoint[] = [observe(0, tasks, logits, tops)];
  for (let step = 1; step <= settings.steps; step++) {
    tasks.forEach((task, t) => {
      const theta = logits[t]!;
      const pi = softmax(theta);
      const draws = Array.from({ length: settings.groupSize }, () => drawArm(pi, random));
      const advantages = groupAdvantages(task, draws, method, settings.advantage);
      const scale = settings.learningRate / draws.length;
      let total = 0;
      draws.forEach((arm, j) => {
        theta[arm]! += scale * advantages[j]!;
        total += advantages[j]!;
      });
      // The e_a − π gradient's −π part: zero for mean-centred estimators, whose group sum is 0.
      if (total !== 0) for (let a = 0; a < theta.length; a++) theta[a]! -= scale * total * pi[a]!;
    });
    points.push(observe(step, tasks, logits, tops));
  }
  return { method, seed, points, finalPolicy: logits.map((l) => [...softmax(l)]) };
}

/** The advantages of one drawn group, from the pipeline's advantage code. */
function groupAdvantages(
  task: TaskArms,
  draws: readonly number[],
  method: Method,
  options: AdvantageOptions,
): Float64Array {
  const group: Group = {
    schemaVersion: 1,
    id: task.taskId,
    task: { id: task.taskId, statement: "", language: "unknown" },
    candidates: draws.map((arm, j) => {
      const a = task.arms[arm]!;
      return {
        id: `d${j}`,
        patch: "",
        passed: a.passed,
        reward: a.passed ? 1 : 0,
        trajectory: { tokens: a.tokens },
      };
    }),
  };
  const ranking = method === "GAGAR" ? rankingOf(task, draws) : undefined;
  const { rows } = computeGroupAdvantages(group, ranking, options);
  return Float64Array.from(rows, (r) => r.advantage);
}

/** The grader's tiers for the distinct passing arms drawn; draws of one arm share its tier. */
function rankingOf(task: TaskArms, draws: readonly number[]): Ranking | undefined {
  let mask = 0;
  for (const arm of draws) if (task.arms[arm]!.passed) mask |= 1 << arm;
  const tiers = task.tiersBySubset.get(mask);
  if (!tiers) return undefined; // fewer than two distinct passing arms: nothing to rank
  // Dense: the subset's tiers are exactly those of the passing arms drawn.
  const ranking: string[][] = Array.from({ length: Math.max(...tiers) + 1 }, () => []);
  draws.forEach((arm, j) => {
    const tier = tiers[arm]!;
    if (tier >= 0) ranking[tier]!.push(`d${j}`);
  });
  return {
    schemaVersion: 1,
    groupId: task.taskId,
    ranking,
    findings: {},
    grader: { name: "static", version: "subset-table" },
  };
}

function observe(
  step: number,
  tasks: readonly TaskArms[],
  logits: readonly Float64Array[],
  tops: readonly Set<number>[],
): PolicyPoint {
  let tokens = 0;
  let passRate = 0;
  let topTierShare = 0;
  tasks.forEach((task, t) => {
    const pi = softmax(logits[t]!);
    let pass = 0;
    let top = 0;
    task.arms.forEach((arm, a) => {
      tokens += pi[a]! * arm.tokens;
      if (arm.passed) pass += pi[a]!;
      if (tops[t]!.has(a)) top += pi[a]!;
    });
    passRate += pass;
    topTierShare += pass > 0 ? top / pass : 0;
  });
  const n = tasks.length;
  return { step, tokens: tokens / n, passRate: passRate / n, topTierShare: topTierShare / n };
}

/** Softmax with the maximum subtracted, so large logits cannot overflow. */
export function softmax(logits: Float64Array): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const x of logits) max = Math.max(max, x);
  const out = new Float64Array(logits.length);
  let sum = 0;
  logits.forEach((x, i) => {
    out[i] = Math.exp(x - max);
    sum += out[i]!;
  });
  for (let i = 0; i < out.length; i++) out[i]! /= sum;
  return out;
}

/** Inverse-CDF draw of an index from a distribution. */
function drawArm(pi: Float64Array, random: Random): number {
  const u = random();
  let acc = 0;
  for (let i = 0; i < pi.length; i++) {
    acc += pi[i]!;
    if (u < acc) return i;
  }
  return pi.length - 1;
}
