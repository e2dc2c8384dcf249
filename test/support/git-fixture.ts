import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A git repository built in a test, and the instance records `gagar tasks import` reads from it: the
 * base commit, then a test patch and a fix made by git as diffs against that base.
 */
export class GitFixture {
  readonly base: string;

  constructor(
    readonly dir: string,
    files: Record<string, string>,
  ) {
    mkdirSync(dir, { recursive: true });
    this.git("init", "-q");
    this.write(files);
    this.git("add", "-A");
    this.git("commit", "-qm", "base");
    this.base = this.git("rev-parse", "HEAD");
  }

  git(...args: string[]): string {
    return this.raw(...args).trim();
  }

  /** git's output as it printed it (a diff keeps its trailing blank context lines). */
  private raw(...args: string[]): string {
    return execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
      cwd: this.dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  }

  /** A diff that turns the base into the base with `files` written (null deletes). */
  diff(files: Record<string, string | null>): string {
    this.write(files);
    this.git("add", "-A");
    const patch = this.raw("diff", "--cached", "HEAD");
    this.git("reset", "-q", "--hard", "HEAD");
    this.git("clean", "-qfd");
    return patch;
  }

  private write(files: Record<string, string | null>): void {
    for (const [rel, text] of Object.entries(files)) {
      const path = join(this.dir, rel);
      if (text === null) {
        rmSync(path, { force: true });
        continue;
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
}

/** Writes instance records as JSONL and returns the file. */
export function writeInstances(file: string, records: readonly Record<string, unknown>[]): string {
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return file;
}
