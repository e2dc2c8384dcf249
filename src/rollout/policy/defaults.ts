/**
 * Defaults of the policy rollout source that `gagar.config.json` does not expose (the configurable
 * ones — maxTurns, maxTokens, timeoutSec, temperature, concurrency, commandTimeoutSec — live in
 * `src/config/defaults.ts`), each with its reason.
 */
export const POLICY_DEFAULTS = {
  /**
   * Bytes of one tool result the model sees (16 KiB ≈ 4k tokens): enough for a test failure's
   * traceback or a mid-sized file, while one `cat` of a log cannot flood the context window.
   */
  toolOutputCapBytes: 16 * 1024,
  /**
   * Bytes a shell command may print before the sandbox kills it. Far above what the model sees, so
   * that a chatty but legitimate test run finishes; a `yes` loop is stopped at 1 MiB.
   */
  commandOutputCapBytes: 1024 * 1024,
  /**
   * Bytes of a file `read_file` reads, and the largest file `str_replace` edits: source files are far
   * smaller; the model sees at most toolOutputCapBytes of it anyway.
   */
  fileReadLimitBytes: 1024 * 1024,
  /**
   * Bytes of the final patch kept. Above the verifier's 1 MiB patch gate, so an oversized patch still
   * reaches the gate and is rejected there with its size; a runaway one (a model that wrote a 100 MB
   * file) ends as an empty patch with `patchError` instead of an unbounded record.
   */
  maxPatchBytes: 4 * 1024 * 1024,
  /** Seconds for one file tool run (node start + one file operation): far more than it ever takes. */
  fileToolTimeoutSec: 30,
  /** Seconds for computing the final diff: `git add -A` hashes the whole workspace once. */
  patchTimeoutSec: 120,
} as const;
