import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { TaskPack } from "./task-pack.ts";

/**
 * `check.json` beside a task: the result of its last saved check (tasks/check.ts: `gagar tasks import`
 * saves it for the tasks it runs, `gagar tasks check --run --save` for the tasks it checks), and what
 * it was about (a fingerprint of task.json and reference.patch). A task whose last check found it
 * invalid, and that has not changed since, is not scored (verify-rollouts.ts).
 */
export const CHECK_FILE = "check.json";

export const StoredCheck = z.object({
  schemaVersion: z.literal(1),
  taskId: z.string(),
  valid: z.boolean(),
  problems: z.array(z.string()),
  /** What is worth knowing but did not make the task invalid. */
  notes: z.array(z.string()).default([]),
  /** Why the reference run did not pass: its failing tests' messages and its output's tail. */
  referenceFailures: z.string().optional(),
  referenceOutput: z.string().optional(),
  /** The tail of a set-up command's output, when the environment could not be built. */
  setupOutput: z.string().optional(),
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

/** What a check found, as stored. */
export interface CheckResult {
  taskId: string;
  valid: boolean;
  problems: string[];
  notes?: string[];
  referenceFailures?: string;
  referenceOutput?: string;
  setupOutput?: string;
}

/** The record `saveCheck` writes. */
export function storedCheck(
  pack: Pick<TaskPack, "dir" | "referencePatch">,
  check: CheckResult,
  now = new Date(),
): StoredCheck {
  return {
    schemaVersion: 1,
    taskId: check.taskId,
    valid: check.valid,
    problems: check.problems,
    notes: check.notes ?? [],
    ...(check.referenceFailures && { referenceFailures: check.referenceFailures }),
    ...(check.referenceOutput && { referenceOutput: check.referenceOutput }),
    ...(check.setupOutput && { setupOutput: check.setupOutput }),
    fingerprint: fingerprintOf(pack),
    checkedAt: now.toISOString(),
  };
}

export function saveCheck(pack: TaskPack, check: CheckResult, now = new Date()): void {
  const stored = storedCheck(pack, check, now);
  writeFileSync(join(pack.dir, CHECK_FILE), `${JSON.stringify(stored, null, 2)}\n`);
}

/** The task's saved check, when there is one that still matches the task (undefined otherwise). */
export function currentCheck(pack: Pick<TaskPack, "dir" | "referencePatch">): StoredCheck | undefined {
  let stored: StoredCheck;
  try {
    stored = StoredCheck.parse(JSON.parse(readFileSync(join(pack.dir, CHECK_FILE), "utf8")));
  } catch {
    return undefined;
  }
  return stored.fingerprint === fingerprintOf(pack) ? stored : undefined;
}

/**
 * The problems of the last check of the task in `dir`, when that check found it invalid and the task
 * has not changed since; undefined when it was valid, never checked, or changed after the check.
 */
export function storedProblems(pack: Pick<TaskPack, "dir" | "referencePatch">): string[] | undefined {
  const stored = currentCheck(pack);
  return stored && !stored.valid ? stored.problems : undefined;
}
