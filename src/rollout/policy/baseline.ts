import { execFile } from "node:child_process";
import { cp, stat } from "node:fs/promises";
import { basename } from "node:path";
import { promisify } from "node:util";
import { ConfigError, SandboxError } from "../../errors.ts";

const run = promisify(execFile);

/**
 * A pristine copy of a task's repository with a one-commit git history, from which every rollout's
 * workspace is copied and against which its final diff is taken.
 *
 * Made on the host, by gagar, before any untrusted code has run: this is the last moment host-side
 * git may touch these files (afterwards git runs only inside the sandbox; docs/security.md §0.4).
 * The repository's own `.git` directories are left out, so no history, hooks or config of the task
 * repo come along, and the commit is pinned (author, dates, branch) so the same tree always gives
 * the same commit id.
 */
export interface Baseline {
  /** The copy; its `.git` is the baseline repository. */
  dir: string;
  gitDir: string;
  /** Id of the baseline commit. */
  commit: string;
}

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "gagar",
  GIT_AUTHOR_EMAIL: "baseline@gagar.invalid",
  GIT_COMMITTER_NAME: "gagar",
  GIT_COMMITTER_EMAIL: "baseline@gagar.invalid",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};

const GIT_FLAGS = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "commit.gpgSign=false",
  "-c",
  "core.autocrlf=false",
];

export async function createBaseline(repoDir: string, dir: string): Promise<Baseline> {
  const info = await stat(repoDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`task repository ${repoDir} is not a directory`);
  await cp(repoDir, dir, {
    recursive: true,
    // Links are copied as they are; the default would rewrite relative links to absolute host paths.
    verbatimSymlinks: true,
    filter: (source) => basename(source) !== ".git",
  });
  const git = async (...args: string[]) => {
    try {
      const { stdout } = await run("git", [...GIT_FLAGS, ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...GIT_ENV },
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout.trim();
    } catch (error) {
      const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
      throw new SandboxError(
        `cannot create the git baseline of ${repoDir}: git ${args[0]} failed: ${detail}`,
        false,
      );
    }
  };
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "--allow-empty", "--no-verify", "-m", "baseline");
  return { dir, gitDir: `${dir}/.git`, commit: await git("rev-parse", "HEAD") };
}

/** A rollout's workspace: a copy of the baseline, `.git` included so the agent can use git. */
export async function copyBaseline(baseline: Baseline, workspace: string): Promise<void> {
  await cp(baseline.dir, workspace, { recursive: true, verbatimSymlinks: true });
}
