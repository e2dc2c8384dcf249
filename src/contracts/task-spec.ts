import { z } from "zod";
import { SchemaVersion } from "./group.ts";

/**
 * `tasks/<id>/task.json` of a task pack. Beside it: `repo/` (the repository at the base commit),
 * `tests/` (hidden tests, laid over the workspace at the same relative paths after the patch),
 * and optionally `reference.patch`.
 */
export const TaskSpec = z.strictObject({
  schemaVersion: SchemaVersion,
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only"),
  statement: z.string().min(1),
  language: z.enum(["python", "javascript", "typescript"]),
  test: z.strictObject({
    /**
     * argv run at the workspace root inside the sandbox. `{junit}` is replaced by the path the
     * JUnit XML report must be written to; `{tests}` by the hidden test files (relative paths).
     */
    command: z.array(z.string().min(1)).min(1),
    report: z.literal("junit").default("junit"),
  }),
  /** Test ids that fail before the fix and must pass after it. */
  failToPass: z.array(z.string().min(1)).min(1),
  /** Test ids that pass before the fix and must keep passing. */
  passToPass: z.array(z.string().min(1)).default([]),
  timeoutSec: z.number().positive().max(3600).default(120),
  /** Glob patterns (relative to the repo root) a candidate patch must not touch, beyond the hidden tests. */
  protectedPaths: z.array(z.string().min(1)).default([]),
});
export type TaskSpec = z.output<typeof TaskSpec>;
