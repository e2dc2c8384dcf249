import { spawn } from "node:child_process";
import { dirname } from "node:path";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs git in `cwd` with `input` on stdin. GIT_CEILING_DIRECTORIES stops git from discovering a
 * repository above `cwd` (scratch trees live in the temp dir, which may sit inside one), so
 * `git apply` and `git diff --no-index` always work on the plain directory they were given.
 */
export function runGit(args: string[], cwd: string, input = ""): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd,
      env: {
        ...process.env,
        GIT_CEILING_DIRECTORIES: dirname(cwd),
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    // git may exit without reading its input (`diff --no-index` never does, a failing `apply` stops
    // early): the write then fails with EPIPE, which the exit code already reports.
    child.stdin.on("error", () => {});
    child.on("close", (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
    child.stdin.end(input);
  });
}
