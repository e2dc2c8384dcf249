import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Writes a task pack folder from file maps, for tests that need tasks of many shapes (runners,
 * environments, import). Patches are whole-file replacements in `git diff` form, which `git apply`
 * takes without a repository.
 */
export interface FixtureTask {
  id: string;
  spec: Record<string, unknown>;
  repo: Record<string, string>;
  tests: Record<string, string>;
  /** Files as the reference fix leaves them. */
  reference?: Record<string, string>;
}

export function writeTask(root: string, task: FixtureTask): string {
  const dir = join(root, task.id);
  const put = (base: string, files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(base, rel)), { recursive: true });
      writeFileSync(join(base, rel), text);
    }
  };
  mkdirSync(join(dir, "repo"), { recursive: true });
  mkdirSync(join(dir, "tests"), { recursive: true });
  put(join(dir, "repo"), task.repo);
  put(join(dir, "tests"), task.tests);
  writeFileSync(
    join(dir, "task.json"),
    `${JSON.stringify({ schemaVersion: 2, id: task.id, ...task.spec }, null, 2)}\n`,
  );
  if (task.reference) writeFileSync(join(dir, "reference.patch"), patchOf(task.repo, task.reference));
  return dir;
}

/** A patch that turns `before` into `after` (files absent from `after` are left alone). */
export function patchOf(before: Record<string, string>, after: Record<string, string>): string {
  return Object.entries(after)
    .map(([path, text]) => fileDiff(path, before[path], text))
    .join("");
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

function fileDiff(path: string, old: string | undefined, text: string): string {
  const next = lines(text);
  if (old === undefined) {
    return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${next.length} @@\n${next.map((l) => `+${l}\n`).join("")}`;
  }
  const prev = lines(old);
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,${prev.length} +1,${next.length} @@\n${prev.map((l) => `-${l}\n`).join("")}${next.map((l) => `+${l}\n`).join("")}`;
}
