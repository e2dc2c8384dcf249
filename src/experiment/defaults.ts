/** Defaults of `gagar experiment length`, each with its reason. */
export const LENGTH_DEFAULTS = {
  /** A few hundred updates: the pass rate saturates within ~100 and the credit among passes keeps acting after. */
  steps: 300,
  /** Enough seeds for a band that shows the spread, cheap because the simulation takes milliseconds per seed. */
  seeds: 8,
  /** The pipeline's group size (n = 8, as in DAPO and SWE-RL). */
  groupSize: 8,
  /**
   * Step size on the logits: with advantages of order 1, 0.5 moves the policy visibly within tens
   * of steps without collapsing it onto one recording in the first few.
   */
  learningRate: 0.5,
  /** The pipeline's default redistribution strength. */
  lambda: 0.5,
} as const;
