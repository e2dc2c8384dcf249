import { z } from "zod";
import { Finding } from "./finding.ts";
import { SCHEMA_VERSION, SchemaVersion } from "./group.ts";

const GraderInfo = z.looseObject({
  name: z.string().min(1),
  version: z.string(),
  /** Set when the requested grader could not rank and another one did, with the reason. */
  fallback: z.looseObject({ from: z.string(), reason: z.string() }).optional(),
});

/** The grader named on rankings that did not say which grader made them (a trainer's own). */
export const EXTERNAL_GRADER = { name: "external", version: "" } as const;

function rankingSchema<V extends z.ZodType<1>, G extends z.ZodType<z.output<typeof GraderInfo>>>(
  schemaVersion: V,
  grader: G,
) {
  return z
    .looseObject({
      schemaVersion,
      groupId: z.string().min(1),
      ranking: z.array(z.array(z.string().min(1)).min(1)),
      findings: z.record(z.string(), z.array(Finding)).default({}),
      grader,
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
}

/** A grader's verdict on one group: tiers of passing candidate ids, best first; ties share a tier. */
export const Ranking = rankingSchema(SchemaVersion, GraderInfo);
export type Ranking = z.output<typeof Ranking>;

/**
 * A ranking as `gagar advantages` and `/v1/advantages` accept it: a trainer's own grader need only
 * give `{groupId, ranking}`. A missing schemaVersion is the current one, missing findings are none,
 * and a missing grader (or grader version) is recorded as EXTERNAL_GRADER. Parses to a Ranking.
 */
export const RankingInput = rankingSchema(
  SchemaVersion.default(SCHEMA_VERSION),
  z
    .looseObject({
      ...GraderInfo.shape,
      name: GraderInfo.shape.name.default(EXTERNAL_GRADER.name),
      version: GraderInfo.shape.version.default(EXTERNAL_GRADER.version),
    })
    .prefault({}),
);
