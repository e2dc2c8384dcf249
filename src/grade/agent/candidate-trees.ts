import { cp, lstat, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { runGit } from "./git.ts";
import { ToolError } from "./tool-error.ts";

/**
 * The file trees the grader's tools read: the base repository (`task.workspace`) and, per
 * candidate, a scratch copy of it with the candidate's patch applied by `git apply` — never a fuzzy
 * fallback, the same rule as the verifier. Copies are made on first use, shared by every pass over
 * the group, and removed by `dispose()`.
 *
 * Only the workspace is reachable: paths are confined to it (no `..`, no absolute paths, no
 * symlinks leading out, no `.git`), so a task pack's hidden `tests/` beside `repo/` and the
 * reference patch are never read.
 */
export class CandidateTrees {
  private scratch: Promise<string> | undefined;
  private readonly applied = new Map<string, Promise<string>>();

  constructor(
    private readonly workspace: string | undefined,
    private readonly patches: ReadonlyMap<string, string>,
    private readonly scratchParent: string = tmpdir(),
  ) {}

  get hasRepository(): boolean {
    return this.workspace !== undefined;
  }

  /** The root directory for `candidateId`'s version, or the base repository when undefined. */
  root(candidateId?: string): Promise<string> {
    if (this.workspace === undefined) {
      return Promise.reject(
        new ToolError("no repository is available in this session; only the patches can be inspected"),
      );
    }
    if (candidateId === undefined) return Promise.resolve(this.workspace);
    let tree = this.applied.get(candidateId);
    if (!tree) {
      tree = this.build(this.workspace, candidateId);
      this.applied.set(candidateId, tree);
    }
    return tree;
  }

  /** A fresh empty directory inside this group's scratch space (removed by `dispose()`). */
  async tempDir(prefix: string): Promise<string> {
    this.scratch ??= mkdtemp(join(this.scratchParent, "gagar-grader-"));
    return mkdtemp(join(await this.scratch, prefix));
  }

  private async build(workspace: string, candidateId: string): Promise<string> {
    const dest = await this.tempDir("tree-");
    await cp(workspace, dest, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => !relative(workspace, src).split(sep).includes(".git"),
    });
    const patch = this.patches.get(candidateId) ?? "";
    if (patch.trim()) await gitApply(dest, patch);
    return dest;
  }

  async dispose(): Promise<void> {
    if (!this.scratch) return;
    const dir = await this.scratch.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Resolves a model-supplied relative path inside `root`, refusing anything that could reach
 * outside it. Returns the absolute path; the target need not exist.
 */
export async function resolveInside(root: string, path: string | undefined): Promise<string> {
  const rel = normalize((path ?? "").trim() || ".").replace(/^(\.\/)+/, "");
  if (isAbsolute(rel))
    throw new ToolError(`"${path}" is absolute; give a path relative to the repository root`);
  if (rel === ".." || rel.startsWith(`..${sep}`)) throw new ToolError(`"${path}" leaves the repository`);
  if (rel.split(sep).includes(".git")) throw new ToolError("the .git directory is not available");
  const full = join(root, rel);
  const realRoot = await realpath(root);
  const real = await realpath(full).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
    // A dangling symlink must not be followed later either.
    if (
      await lstat(full).then(
        (s) => s.isSymbolicLink(),
        () => false,
      )
    )
      throw new ToolError(`"${path}" is a broken symlink`);
    throw new ToolError(`no such file or directory: ${rel}`);
  });
  if (real !== realRoot && !real.startsWith(realRoot + sep))
    throw new ToolError(`"${path}" leads outside the repository`);
  return full;
}

/** The path of `full` relative to `root`, with forward slashes, as shown to the model. */
export function displayPath(root: string, full: string): string {
  return relative(root, full).split(sep).join("/") || ".";
}

async function gitApply(dir: string, patch: string): Promise<void> {
  const result = await runGit(["apply", "--whitespace=nowarn", "-"], dir, patch).catch((e: Error) => {
    throw new ToolError(`cannot run git apply: ${e.message}`);
  });
  if (result.code !== 0) {
    throw new ToolError(
      `this candidate's patch does not apply to the repository: ${result.stderr.trim().slice(0, 500)}`,
    );
  }
}
