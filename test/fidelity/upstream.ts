import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { globToRegExp } from "../../src/verify/gate/glob.ts";
import type { FidelityRepository, FidelityTask } from "./manifest.ts";

const run = promisify(execFile);

/**
 * A repository's upstream history on disk, and the SWE-bench-style records its fixes become.
 *
 * A bundle is cloned bare. An npm source becomes a git repository with one commit per published
 * version, oldest first, each holding the tarball's `package/` tree exactly (so consecutive versions of
 * a bug-fix release differ by that release); the commits carry a fixed identity and date, so a version
 * maps to the same commit on every machine. Every tarball is checked against the integrity the manifest
 * pins before it is used.
 */

const GIT_ENV = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "npm registry",
  GIT_AUTHOR_EMAIL: "registry@npm",
  GIT_COMMITTER_NAME: "npm registry",
  GIT_COMMITTER_EMAIL: "registry@npm",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};

export async function git(
  dir: string,
  args: string[],
  maxBuffer = 256 * 2 ** 20,
  env: Record<string, string> = {},
): Promise<string> {
  const { stdout } = await run("git", ["-c", "core.hooksPath=/dev/null", ...args], {
    cwd: dir,
    env: { ...GIT_ENV, ...env },
    maxBuffer,
  });
  return stdout;
}

/** The repository's history as a git repository under `reposDir/<owner>/<name>`; revisions → commits. */
export interface UpstreamRepo {
  gitDir: string;
  /** A revision of the manifest (a commit, or a published version) as a commit of `gitDir`. */
  commit(revision: string): string;
}

export async function materialize(
  repo: FidelityRepository,
  reposDir: string,
  realcode: string,
  scratch: string,
): Promise<UpstreamRepo> {
  const gitDir = join(reposDir, ...repo.name.split("/"));
  rmSync(gitDir, { recursive: true, force: true });
  mkdirSync(join(gitDir, ".."), { recursive: true });
  const source = repo.source;
  if (source.kind === "bundle") {
    const bundle = join(realcode, `${repo.name.replace("/", "+")}.bundle`);
    await run("git", ["clone", "--quiet", "--bare", bundle, gitDir], { env: GIT_ENV });
    return { gitDir, commit: (revision) => revision };
  }
  const byVersion = new Map<string, string>();
  await git(join(gitDir, ".."), ["init", "--quiet", "--bare", gitDir]);
  const work = join(scratch, `npm-${source.package.replace(/[^A-Za-z0-9._-]/g, "_")}`);
  for (const { version, integrity } of source.versions) {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const spec = `${source.package}@${version}`;
    const { stdout } = await run("npm", ["pack", spec, "--json", "--pack-destination", work], {
      cwd: work,
      maxBuffer: 64 * 2 ** 20,
    });
    const packed = (JSON.parse(stdout) as { integrity: string; filename: string }[])[0]!;
    if (packed.integrity !== integrity)
      throw new Error(
        `${spec}: the registry's tarball has integrity ${packed.integrity}, the manifest pins ${integrity}`,
      );
    await run("tar", ["-x", "-z", "-f", join(work, packed.filename), "-C", work]);
    const tree = join(work, "package");
    const env = { GIT_DIR: gitDir, GIT_WORK_TREE: tree, GIT_INDEX_FILE: join(work, "index") };
    const inRepo = (args: string[]) => run("git", args, { cwd: tree, env: { ...GIT_ENV, ...env } });
    await inRepo(["add", "--all", "--force", "."]);
    const parent = byVersion.size ? ["-p", [...byVersion.values()].at(-1)!] : [];
    const treeId = (await inRepo(["write-tree"])).stdout.trim();
    const commit = (await inRepo(["commit-tree", treeId, ...parent, "-m", spec])).stdout.trim();
    byVersion.set(version, commit);
  }
  rmSync(work, { recursive: true, force: true });
  await git(gitDir, ["update-ref", "refs/heads/main", [...byVersion.values()].at(-1)!]);
  return {
    gitDir,
    commit: (revision) => {
      const commit = byVersion.get(revision);
      if (!commit) throw new Error(`${source.package}: no version ${revision} in the manifest`);
      return commit;
    },
  };
}

/** Which part of a fix a changed path belongs to: the hidden tests, the gold patch, or neither. */
export function classifyPath(
  path: string,
  globs: { tests: readonly string[]; code: readonly string[] },
): "tests" | "code" | "other" {
  if (globs.tests.some((g) => globToRegExp(g).test(path))) return "tests";
  if (globs.code.some((g) => globToRegExp(g).test(path))) return "code";
  return "other";
}

/** A SWE-bench-style record (src/tasks/import.ts) with no FAIL_TO_PASS: gagar derives it by running. */
export interface UpstreamInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  language: string;
  runner: string;
  environment: unknown;
}

/** The fix's code diff (gold), its test diff (hidden tests) and its statement, at its base commit. */
export async function upstreamInstance(
  repo: FidelityRepository,
  upstream: UpstreamRepo,
  task: FidelityTask,
): Promise<UpstreamInstance> {
  const base = upstream.commit(task.base);
  const fix = upstream.commit(task.fix);
  const parents = (await git(upstream.gitDir, ["rev-list", "--parents", "-n", "1", fix])).trim().split(" ");
  if (!parents.slice(1).includes(base))
    throw new Error(`${repo.name} ${task.id}: ${task.base} is not a parent of ${task.fix}`);
  const changed = (await git(upstream.gitDir, ["diff", "--name-only", "--no-renames", "-z", base, fix]))
    .split("\0")
    .filter(Boolean);
  const part = (which: "tests" | "code") => changed.filter((p) => classifyPath(p, repo) === which);
  const diff = async (paths: string[]) =>
    paths.length
      ? git(upstream.gitDir, ["diff", "--no-renames", "--full-index", base, fix, "--", ...paths])
      : "";
  const [patch, testPatch] = [await diff(part("code")), await diff(part("tests"))];
  if (!patch)
    throw new Error(`${repo.name} ${task.id}: the fix changes no code path (${repo.code.join(", ")})`);
  if (!testPatch)
    throw new Error(`${repo.name} ${task.id}: the fix changes no test path (${repo.tests.join(", ")})`);
  const message =
    repo.source.kind === "bundle"
      ? (await git(upstream.gitDir, ["log", "-1", "--format=%B", fix])).trim()
      : `${repo.source.package} ${task.base} → ${task.fix}`;
  return {
    instance_id: task.id,
    repo: repo.name,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: `${task.about}\n\n${message}`,
    language: repo.language,
    runner: repo.runner,
    environment: repo.environment,
  };
}

/** The whole-suite run's test files at `commit`: the manifest's suite globs, matched against the tree. */
export async function suiteFiles(repo: FidelityRepository, upstream: UpstreamRepo): Promise<string[]> {
  const commit = upstream.commit(repo.suite.at);
  const paths = (await git(upstream.gitDir, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit]))
    .split("\0")
    .filter(Boolean);
  const globs = repo.suite.files.map((g) => globToRegExp(g));
  return paths.filter((p) => globs.some((g) => g.test(p))).sort();
}
