import { execFileSync } from "node:child_process";
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../errors.ts";
import { copyBaseline, createBaseline } from "./baseline.ts";
import { makeTree, removeTrees } from "./test-helpers.ts";

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null" },
  });

afterAll(removeTrees);

describe("createBaseline", () => {
  it("commits a copy of the repository without its .git directories and leaves the original alone", async () => {
    const repo = await makeTree({
      "pkg/mod.py": "x = 1\n",
      ".git/hooks/post-commit": "#!/bin/sh\ntouch /tmp/pwned\n",
      "vendor/lib/.git": "gitdir: /elsewhere\n",
      "vendor/lib/code.py": "y = 2\n",
    });
    await symlink("pkg/mod.py", join(repo, "link.py"));
    const scratch = await makeTree({});
    const baseline = await createBaseline(repo, join(scratch, "baseline"));

    expect(git(baseline.dir, "ls-files").trim().split("\n")).toEqual([
      "link.py",
      "pkg/mod.py",
      "vendor/lib/code.py",
    ]);
    expect(git(baseline.dir, "rev-parse", "HEAD").trim()).toBe(baseline.commit);
    expect(git(baseline.dir, "status", "--porcelain")).toBe("");
    // The relative link stays relative (not rewritten to a host path).
    expect(await readlink(join(baseline.dir, "link.py"))).toBe("pkg/mod.py");
    // The task repo's own hooks did not come along, and its .git was not touched.
    expect(await lstat(join(baseline.gitDir, "hooks/post-commit")).catch(() => undefined)).toBeUndefined();
    expect(await readFile(join(repo, ".git/hooks/post-commit"), "utf8")).toContain("pwned");
  });

  it("gives the same commit for the same tree, and a different one for a different tree", async () => {
    const a = await makeTree({ "a.txt": "same\n" });
    const b = await makeTree({ "a.txt": "same\n" });
    const c = await makeTree({ "a.txt": "other\n" });
    const scratch = await makeTree({});
    const [ba, bb, bc] = await Promise.all(
      [a, b, c].map((repo, i) => createBaseline(repo, join(scratch, `b${i}`))),
    );
    expect(ba!.commit).toBe(bb!.commit);
    expect(bc!.commit).not.toBe(ba!.commit);
  });

  it("works for an empty repository", async () => {
    const repo = await makeTree({});
    const baseline = await createBaseline(repo, join(await makeTree({}), "baseline"));
    expect(baseline.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("names a missing repository as a configuration problem", async () => {
    await expect(createBaseline("/nonexistent/repo", join(await makeTree({}), "b"))).rejects.toThrow(
      ConfigError,
    );
  });
});

describe("copyBaseline", () => {
  it("gives each rollout its own copy, git history included", async () => {
    const repo = await makeTree({ "a.txt": "1\n" });
    const scratch = await makeTree({});
    const baseline = await createBaseline(repo, join(scratch, "baseline"));
    const ws = join(scratch, "p0");
    await copyBaseline(baseline, ws);
    await writeFile(join(ws, "a.txt"), "changed\n");
    await mkdir(join(ws, "new"));
    expect(await readFile(join(baseline.dir, "a.txt"), "utf8")).toBe("1\n");
    expect(git(ws, "rev-parse", "HEAD").trim()).toBe(baseline.commit);
  });
});
