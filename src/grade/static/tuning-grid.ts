import type { GridPoint } from "../eval/leave-one-repo-out.ts";
import { resolveStaticOptions } from "./defaults.ts";

/**
 * The static grader's tunables that `gagar grader eval --loro` chooses between, defaults first: how
 * much a line of unneeded change weighs next to a defect, how close two scores must be to tie (in
 * lines of unneeded change), and how near a peer's change must be to share a line. Every other
 * weight is a prior (defaults.ts says which data it was checked on).
 */
export function staticTuningGrid(): GridPoint[] {
  const defaults = resolveStaticOptions();
  const points: GridPoint[] = [];
  const seen = new Set<string>();
  const add = (excessPerLine: number, tieLines: number, coreReach: number) => {
    const label = `excessPerLine=${excessPerLine} tieMargin=${tieLines}×excessPerLine coreReach=${coreReach}`;
    if (seen.has(label)) return;
    seen.add(label);
    points.push({ label, options: { excessPerLine, tieMargin: tieLines * excessPerLine, coreReach } });
  };
  add(defaults.excessPerLine, defaults.tieMargin / defaults.excessPerLine, defaults.coreReach);
  for (const excessPerLine of [0.05, 0.1, 0.25, 0.375, 0.5, 1])
    for (const tieLines of [1, 2, 4]) for (const coreReach of [4, 8]) add(excessPerLine, tieLines, coreReach);
  return points;
}
