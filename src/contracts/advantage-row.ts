import { z } from "zod";

/**
 * One candidate's credit, as `gagar advantages` writes it.
 * `advantage = baseAdvantage * weight`; `tier` is the 0-based tier index of a ranked passing
 * candidate, null otherwise.
 */
export const AdvantageRow = z.object({
  groupId: z.string(),
  candidateId: z.string(),
  reward: z.number(),
  baseAdvantage: z.number(),
  advantage: z.number(),
  weight: z.number(),
  tier: z.number().int().nonnegative().nullable(),
});
export type AdvantageRow = z.infer<typeof AdvantageRow>;
