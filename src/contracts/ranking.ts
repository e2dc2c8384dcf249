import { z } from "zod";
import { Finding } from "./finding.ts";
import { SchemaVersion } from "./group.ts";

/** A grader's verdict on one group: tiers of passing candidate ids, best first; ties share a tier. */
export const Ranking = z
  .looseObject({
    schemaVersion: SchemaVersion,
    groupId: z.string().min(1),
    ranking: z.array(z.array(z.string().min(1)).min(1)),
    findings: z.record(z.string(), z.array(Finding)).default({}),
    grader: z.looseObject({
      name: z.string().min(1),
      version: z.string(),
      /** Set when the requested grader could not rank and another one did, with the reason. */
      fallback: z.looseObject({ from: z.string(), reason: z.string() }).optional(),
    }),
  })
  .superRefine((r, ctx) => {
    const seen = new Set<string>();
    for (const [t, tier] of r.ranking.entries()) {
      for (const [i, id] of tier.entries()) {
        if (seen.has(id))
          ctx.addIssue({ code: "custom", path: ["ranking", t, i], message: `"${id}" appears twice` });
        seen.add(id);
      }
    }
  });
export type Ranking = z.output<typeof Ranking>;
