import { z } from "zod";

/** The defaults of `AdvantageSettings` (config/defaults.ts takes them as the config's). */
export const ADVANTAGE_DEFAULTS = {
  /** verl's default estimator. */
  estimator: "grpo",
  /** Linear in rank position (ARCHITECTURE.md, Formulas). */
  scheme: "linear" as const,
  /** λ = 0.5: the worst passing candidate keeps half the weight of the best before rescaling. */
  lambda: 0.5,
  /** Sequence-mean loss aggregation is the common case; `token` matches token-mean losses. */
  preserve: "sequence" as const,
  /**
   * A pass with a critical finding (test tampering, forged results, attacks on the harness,
   * hard-coded outputs) is scored as a failure: without the veto, redistribution only pays such a
   * pass less, and the policy is still reinforced for the hack. An honest fix that draws a critical
   * finding is vetoed too: docs/config.md (The veto) gives the static grader's rate on real code
   * and when to choose `none`, the paper's setting.
   */
  veto: "critical" as const,
};

/** Estimator and GAGAR redistribution settings (the config's `advantage`, the service's `options`). */
export const AdvantageSettings = z.strictObject({
  estimator: z.string().min(1).default(ADVANTAGE_DEFAULTS.estimator),
  scheme: z.enum(["linear", "bottom", "none"]).default(ADVANTAGE_DEFAULTS.scheme),
  lambda: z
    .number()
    .min(0)
    .lt(1, "λ must be below 1 so a pass never drops below a fail")
    .default(ADVANTAGE_DEFAULTS.lambda),
  preserve: z.enum(["sequence", "token"]).default(ADVANTAGE_DEFAULTS.preserve),
  veto: z.enum(["none", "critical"]).default(ADVANTAGE_DEFAULTS.veto),
});
export type AdvantageSettings = z.output<typeof AdvantageSettings>;
