import { z } from "zod";
import { Finding } from "./finding.ts";

/** The version of every record gagar reads and writes; bumped only with fixtures of the old form. */
export const SCHEMA_VERSION = 1;
export const SchemaVersion = z.literal(SCHEMA_VERSION);

export const TaskRef = z.looseObject({
  id: z.string().min(1),
  /** The issue text; may be absent in groups assembled from leaderboards. */
  statement: z.string().default(""),
  /** Free text ("python", "Java"…); graders normalize it. */
  language: z.string().default("unknown"),
  /** Path to the repository at the base commit; lets graders read surrounding code. */
  workspace: z.string().optional(),
});
export type TaskRef = z.infer<typeof TaskRef>;

export const Trajectory = z.looseObject({
  turns: z.number().int().nonnegative().optional(),
  tokens: z.number().int().nonnegative().optional(),
  /** Why the rollout ended (`submit`, `max_turns`, `time_limit`, …), when the source recorded it. */
  finishReason: z.string().optional(),
  /** Where the full transcript lives (a file path, a store key…). */
  messagesRef: z.string().optional(),
  /** Where the sampled tokens of each assistant turn live, when the source kept them. */
  tokensRef: z.string().optional(),
});
export type Trajectory = z.infer<typeof Trajectory>;

export const Candidate = z
  .looseObject({
    id: z.string().min(1),
    patch: z.string(),
    passed: z.boolean(),
    /** Scalar reward; defaults to 1 for a pass and 0 for a fail. */
    reward: z.number().finite().optional(),
    trajectory: Trajectory.optional(),
    /**
     * What the verifier found (its verdict's findings: the gate's scan, the guards in the test process);
     * graders and `--veto critical` weigh them with their own.
     */
    findings: z.array(Finding).optional(),
  })
  .transform((c) => ({ ...c, reward: c.reward ?? (c.passed ? 1 : 0) }));
export type Candidate = z.output<typeof Candidate>;

/** One rollout group: n candidates for one task. */
export const Group = z
  .looseObject({
    schemaVersion: SchemaVersion,
    id: z.string().min(1),
    task: TaskRef,
    candidates: z.array(Candidate).min(1),
    /** Optional reference solution; graders must not read it unless configured to. */
    reference: z.looseObject({ patch: z.string() }).optional(),
  })
  .superRefine((g, ctx) => {
    const seen = new Set<string>();
    g.candidates.forEach((c, i) => {
      if (seen.has(c.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["candidates", i, "id"],
          message: `duplicate candidate id "${c.id}"`,
        });
      }
      seen.add(c.id);
    });
  });
export type Group = z.output<typeof Group>;
