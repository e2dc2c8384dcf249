import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { TaskPack } from "./task-pack.ts";

/**
 * `check.json` beside a task: the result of its last `gagar tasks check --run` (tasks/check.ts), and
 * what it was about (a fingerprint of task.json and reference.patch). A task whose last check found it
 * invalid, and that has not changed since, is not scored (verify-rollouts.ts).
 */
export const CHECK_FILE = "check.json";

export const StoredCheck = z.object({
  schemaVersion: z.literal(1),
  taskId: z.string(),
  valid: z.boolean(),
  problems: z.array(z.string()),
  /** Why the reference run did not pass: its failing tests' messages and its output's tail. */
  referenceFailures: z.string().optional(),
  referenceOutput: z.string().optional(),
  /** What was checked: task.json and reference.patch as they were. */
  fingerprint: z.string(),
  checkedAt: z.string(),
});
export type StoredCheck = z.infer<typeof StoredCheck>;

/** What a stored check vouches for: the task's spec and reference as they were checked. */
export function fingerprintOf(pack: Pick<TaskPack, "dir" | "referencePatch">): string {
  const hash = createHash("sha256").update(readFileSync(join(pack.dir, "task.json")));
  return hash
    .update("\0")
    .update(pack.referencePatch ?? "")
    .digest("hex");
}

export function saveCheck(
  pack: TaskPack,
  check: {
    taskId: string;
    valid: boolean;
    problems: string[];
    referenceFailures?: string;
    referenceOutput?: string;
  },
  now = new Date(),
): void {
  const stored: StoredCheck = {
    schemaVersion: 1,
    taskId: check.taskId,
    valid: check.valid,
    problems: check.problems,
    ...(check.referenceFailures && { referenceFailures: check.referenceFailures }),
    ...(check.referenceOutput && { referenceOutput: check.referenceOutput }),
    fingerprint: fingerprintOf(pack),
    checkedAt: now.toISOString(),
  };
  writeFileSync(join(pack.dir, CHECK_FILE), `${JSON.stringify(stored, null, 2)}\n`);
}

/**
 * The problems of the last check of the task in `dir`, when that check found it invalid and the task
 * has not changed since; undefined when it was valid, never checked, or changed after the check.
 */
export function storedProblems(pack: Pick<TaskPack, "dir" | "referencePatch">): string[] | undefined {
  let stored: StoredCheck;
  try {
    stored = StoredCheck.parse(JSON.parse(readFileSync(join(pack.dir, CHECK_FILE), "utf8")));
  } catch {
    return undefined;
  }
  if (stored.valid || stored.fingerprint !== fingerprintOf(pack)) return undefined;
  return stored.problems;
}
