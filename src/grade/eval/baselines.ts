import type { Group } from "../../contracts/group.ts";
import { seededRandom } from "../agent/labels.ts";
import { changedFileCount, changedLineCount } from "./pairwise-accuracy.ts";

/**
 * Naive rankings a grader must beat, scored on the same pairs as the grader (`gagar grader eval`):
 * each ranks every candidate of a group by a key, smaller first, equal keys sharing a tier — the
 * baselines of the reference evaluation script. "random" draws its keys from a generator seeded by
 * the group id, so reports are reproducible.
 */
export interface Baseline {
  name: string;
  rank(group: Group): string[][];
}

export const BASELINES: readonly Baseline[] = [
  byKey("fewest changed lines", (c) => [changedLineCount(c.patch)]),
  byKey("fewest files", (c) => [changedFileCount(c.patch)]),
  byKey("files, then lines", (c) => [changedFileCount(c.patch), changedLineCount(c.patch)]),
  {
    name: "random (seeded)",
    rank(group) {
      const next = seededRandom(group.id);
      return tiersByKey(group, new Map(group.candidates.map((c) => [c.id, [next()]])));
    },
  },
  byKey("all tied", () => [0]),
];

function byKey(name: string, key: (c: Group["candidates"][number]) => number[]): Baseline {
  return { name, rank: (group) => tiersByKey(group, new Map(group.candidates.map((c) => [c.id, key(c)]))) };
}

function tiersByKey(group: Group, keys: Map<string, number[]>): string[][] {
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  };
  const ids = group.candidates.map((c) => c.id).sort((a, b) => compare(keys.get(a)!, keys.get(b)!));
  const tiers: string[][] = [];
  for (const id of ids) {
    const tier = tiers.at(-1);
    if (tier && compare(keys.get(tier[0]!)!, keys.get(id)!) === 0) tier.push(id);
    else tiers.push([id]);
  }
  return tiers;
}
