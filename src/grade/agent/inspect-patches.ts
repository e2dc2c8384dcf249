import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runGit } from "./git.ts";
import { escapeRegExp, NO_REPOSITORY } from "./inspect-files.ts";
import { type ShownCandidate, shown, type ToolContext, treeFor } from "./tool-context.ts";
import { ToolError } from "./tool-error.ts";

/** view_patch, compare_patches and view_test_results. */

export function viewPatch(ctx: ToolContext, args: { candidate: string }): string {
  const patch = shown(ctx, args.candidate).candidate.patch;
  return patch.trim() ? patch : "(empty patch: this candidate changes nothing)";
}

/**
 * How two candidates' results differ, as `git diff --no-index` between their patched trees (paths
 * prefixed with the labels). Without a repository it diffs the two patches file by file instead.
 */
export async function comparePatches(ctx: ToolContext, args: { a: string; b: string }): Promise<string> {
  const a = shown(ctx, args.a);
  const b = shown(ctx, args.b);
  if (a.label === b.label) throw new ToolError("compare two different candidates");
  let left: string;
  let right: string;
  let header = "";
  if (ctx.trees.hasRepository) {
    [left, right] = await Promise.all([treeFor(ctx, a.label), treeFor(ctx, b.label)]);
  } else {
    [left, right] = await Promise.all([patchSections(ctx, a), patchSections(ctx, b)]);
    header = `${NO_REPOSITORY}\nThis is a diff of the two patches, file by file.\n`;
  }
  const parent = dirname(left);
  const names = [left.slice(parent.length + 1), right.slice(parent.length + 1)];
  const diff = await runGit(
    [
      "diff",
      "--no-index",
      "--no-color",
      `--src-prefix=${a.label}/`,
      `--dst-prefix=${b.label}/`,
      "--",
      ...names,
    ],
    parent,
  );
  if (diff.code > 1) throw new ToolError(`cannot compare: ${diff.stderr.trim().slice(0, 300)}`);
  // git names each side by its scratch directory; the model should see repository paths only.
  const scratch = new RegExp(
    `(^|[ \\t])(${a.label}|${b.label})/(${names.map(escapeRegExp).join("|")})/`,
    "gm",
  );
  const body = diff.stdout.replace(scratch, "$1$2/");
  const same = ctx.trees.hasRepository ? "produce identical files" : "have identical patches";
  return header + (body.trim() ? body : `${a.label} and ${b.label} ${same}`);
}

/** Writes each file's part of a candidate's patch to `<dir>/<path>` so two patches can be diffed. */
async function patchSections(ctx: ToolContext, c: ShownCandidate): Promise<string> {
  const dir = await ctx.trees.tempDir("patch-");
  const sections = splitByFile(c.candidate.patch);
  await Promise.all(
    [...sections].map(async ([path, text]) => {
      const target = join(dir, path);
      if (!target.startsWith(dir)) return;
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
    }),
  );
  return dir;
}

function splitByFile(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = patch.split(/^(?=diff --git )/m).filter((p) => p.startsWith("diff --git "));
  for (const part of parts) {
    const match = /^diff --git a\/(.*) b\/(.*)$/m.exec(part);
    const path = (match?.[2] ?? `file-${out.size}`).replace(/(^|\/)\.\.(?=\/|$)/g, "$1__");
    out.set(path, part);
  }
  return out;
}

/**
 * The verifier's verdict as the group records it: passed, reward and, when the candidate carries
 * them, per-test statuses. Hidden test sources are never shown.
 */
export function viewTestResults(ctx: ToolContext, args: { candidate: string }): string {
  const { label, candidate } = shown(ctx, args.candidate);
  const lines = [
    `${label}: ${candidate.passed ? "passed" : "failed"} the hidden tests (reward ${candidate.reward})`,
  ];
  const tests = (candidate as { tests?: unknown }).tests;
  if (tests && typeof tests === "object" && !Array.isArray(tests)) {
    for (const [id, status] of Object.entries(tests)) lines.push(`  ${id}: ${String(status)}`);
  } else lines.push("Only the overall verdict was recorded; per-test results are not available.");
  return lines.join("\n");
}
