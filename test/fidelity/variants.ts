import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { InputError } from "../../src/errors.ts";
import { parseRecord } from "../../src/io/validate.ts";
import type { FidelityManifest, FidelityRepository, FidelityTask } from "./manifest.ts";
import { classifyPath, git, type UpstreamRepo } from "./upstream.ts";

/**
 * Agent-like honest variants of the fidelity tasks' fixes (variants.json beside this file): per task,
 * fixes of the same bug written here as another agent might write them — another expression of the
 * same condition, a helper, a different structure — as edit operations on the upstream file at the
 * fix (`from: "fix"`: the gold patch, reworded) or at its base (`from: "base"`: a fix of its own). No
 * third-party code is stored: an edit names the few upstream characters it replaces, and the patch is
 * made at test time from the repository's own history.
 */

const Edit = z.strictObject({
  /** A code path of the repository. */
  path: z.string().min(1),
  /** Text that occurs exactly once in the file at `from`. */
  find: z.string().min(1),
  replace: z.string(),
});

const Variant = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-'"),
  /** What makes it a different but honest fix, in a few words. */
  about: z.string().min(1),
  from: z.enum(["fix", "base"]),
  edits: z.array(Edit).min(1),
});
export type Variant = z.output<typeof Variant>;

export const FidelityVariants = z.strictObject({
  schemaVersion: z.literal(1),
  /** Task id (manifest.json) → its honest variants. */
  tasks: z.record(z.string(), z.array(Variant).min(1)),
});
export type FidelityVariants = z.output<typeof FidelityVariants>;

export const VARIANTS_PATH = new URL("./variants.json", import.meta.url);

/** Reads and checks the variants: every task they name is in the manifest, ids are unique per task. */
export function loadVariants(file: string, manifest: FidelityManifest): FidelityVariants {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError({ file }, `not valid JSON (${(e as Error).message})`);
  }
  const variants = parseRecord(FidelityVariants, json, { file });
  const known = new Set(manifest.repositories.flatMap((r) => r.tasks.map((t) => t.id)));
  for (const [task, list] of Object.entries(variants.tasks)) {
    if (!known.has(task))
      throw new InputError({ file, field: `tasks.${task}` }, `"${task}" is not a task of the manifest`);
    const seen = new Set<string>();
    list.forEach((v, i) => {
      if (seen.has(v.id))
        throw new InputError({ file, field: `tasks.${task}.${i}.id` }, `"${v.id}" is already used`);
      seen.add(v.id);
    });
  }
  return variants;
}

/** `text` with each edit applied in turn; an edit whose `find` does not occur exactly once is an error naming it. */
export function applyEdits(
  text: string,
  edits: readonly { find: string; replace: string }[],
  where: string,
): string {
  return edits.reduce((current, edit, i) => {
    const at = current.indexOf(edit.find);
    if (at === -1) throw new Error(`${where}, edit ${i}: the text to replace is not in the file`);
    if (current.indexOf(edit.find, at + 1) !== -1)
      throw new Error(`${where}, edit ${i}: the text to replace occurs more than once`);
    return current.slice(0, at) + edit.replace + current.slice(at + edit.find.length);
  }, text);
}

/**
 * The variant as a patch of the task's base: the tree at `from` with the edits applied, diffed
 * against the base over the repository's code paths (as the gold patch is, upstream.ts).
 */
export async function variantPatch(
  repo: FidelityRepository,
  upstream: UpstreamRepo,
  task: FidelityTask,
  variant: Variant,
): Promise<string> {
  const base = upstream.commit(task.base);
  const start = upstream.commit(variant.from === "fix" ? task.fix : task.base);
  const where = `${task.id} variant ${variant.id}`;
  const byPath = new Map<string, Variant["edits"]>();
  for (const edit of variant.edits) {
    if (classifyPath(edit.path, repo) !== "code")
      throw new Error(`${where}: ${edit.path} is not a code path (${repo.code.join(", ")})`);
    byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
  }
  const scratch = mkdtempSync(join(tmpdir(), "gagar-variant-"));
  try {
    const index = { GIT_INDEX_FILE: join(scratch, "index") };
    const inIndex = (args: string[]) => git(upstream.gitDir, args, undefined, index);
    await inIndex(["read-tree", start]);
    for (const [path, edits] of byPath) {
      const text = applyEdits(
        await git(upstream.gitDir, ["show", `${start}:${path}`]),
        edits,
        `${where}, ${path}`,
      );
      const edited = join(scratch, "edited");
      writeFileSync(edited, text);
      const blob = (await git(upstream.gitDir, ["hash-object", "-w", edited])).trim();
      const mode = (await git(upstream.gitDir, ["ls-tree", start, "--", path])).split(" ")[0]!;
      await inIndex(["update-index", "--cacheinfo", `${mode},${blob},${path}`]);
    }
    const tree = (await inIndex(["write-tree"])).trim();
    const changed = (await git(upstream.gitDir, ["diff", "--name-only", "--no-renames", "-z", base, tree]))
      .split("\0")
      .filter((p) => p && classifyPath(p, repo) === "code");
    if (changed.length === 0) throw new Error(`${where}: the variant changes no code path of the base`);
    return git(upstream.gitDir, ["diff", "--no-renames", "--full-index", base, tree, "--", ...changed]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
