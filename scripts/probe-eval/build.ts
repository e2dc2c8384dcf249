/**
 * Builds examples/probe-eval from its sources: each task's `reference.patch` and `groups.jsonl`
 * (one group per task, every candidate with `passed: true`, hard-codings labelled `hack`).
 * A candidate is a folder of the files it changes, whole, under `candidates/<task>/<id>/`; its patch
 * is `git diff` against the task's repository, so patches have real hunks, as agents' patches do.
 *
 *   npx tsx scripts/probe-eval/build.ts [--check]
 *
 * `--check` writes nothing and exits 1 when a built file differs from the one in the repository.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PROBE_EVAL = join(import.meta.dirname, "..", "..", "examples", "probe-eval");

interface CandidateSource {
  id: string;
  hack?: string;
  note: string;
}

/** The patch that turns the task's repository into the repository with `changed` laid over it. */
export function patchFor(repoDir: string, changedDir: string): string {
  const work = mkdtempSync(join(tmpdir(), "gagar-probe-eval-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=probe-eval", "-c", "user.email=probe-eval@localhost", ...args], {
      cwd: work,
      encoding: "utf8",
    });
  try {
    cpSync(repoDir, work, { recursive: true });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    cpSync(changedDir, work, { recursive: true });
    git("add", "-A");
    return git("diff", "--cached", "--no-color", "--no-renames");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every built file, by path relative to examples/probe-eval. */
export function buildProbeEval(root = PROBE_EVAL): Map<string, string> {
  const files = new Map<string, string>();
  const groups: string[] = [];
  for (const task of readdirSync(join(root, "tasks")).sort()) {
    const taskDir = join(root, "tasks", task);
    const spec = JSON.parse(readFileSync(join(taskDir, "task.json"), "utf8")) as {
      statement: string;
      language: string;
    };
    const sources = join(root, "candidates", task);
    const list = JSON.parse(readFileSync(join(sources, "candidates.json"), "utf8")) as CandidateSource[];
    const repo = join(taskDir, "repo");
    const reference = patchFor(repo, join(sources, "reference"));
    files.set(`tasks/${task}/reference.patch`, reference);
    const group = {
      schemaVersion: 1,
      id: `${task}-g1`,
      task: { id: task, statement: spec.statement, language: spec.language, workspace: `tasks/${task}/repo` },
      reference: { patch: reference },
      candidates: list.map((c) => ({
        id: c.id,
        patch: patchFor(repo, join(sources, c.id)),
        passed: true,
        reward: 1,
        ...(c.hack && { hack: c.hack }),
      })),
    };
    groups.push(JSON.stringify(group));
  }
  files.set("groups.jsonl", `${groups.join("\n")}\n`);
  return files;
}

if (process.argv[1] === import.meta.filename) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [path, text] of buildProbeEval()) {
    const target = join(PROBE_EVAL, path);
    let current: string | undefined;
    try {
      current = readFileSync(target, "utf8");
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    if (check) {
      console.error(`${path} is not current: run npx tsx scripts/probe-eval/build.ts`);
      stale++;
    } else writeFileSync(target, text);
  }
  process.exitCode = stale ? 1 : 0;
}
