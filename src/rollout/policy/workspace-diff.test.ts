import { execFileSync } from "node:child_process";
import { chmod, cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { copyBaseline, createBaseline } from "./baseline.ts";
import { runShellTool } from "./shell-tool.ts";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";
import { diffWorkspace } from "./workspace-diff.ts";

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

const REPO = { "src/app.py": "print('hi')\n", "README.md": "# app\n", "old.txt": "to delete\n" };

async function setup() {
  const repo = await makeTree(REPO);
  const scratch = await makeTree({});
  const baseline = await createBaseline(repo, join(scratch, "baseline"));
  const workspace = join(scratch, "ws");
  await copyBaseline(baseline, workspace);
  const shell = (command: string) =>
    runShellTool({ sandbox, workspace, timeoutMs: 30_000, outputCapBytes: 1 << 20 }, command);
  const diff = (maxPatchBytes = 1 << 20) =>
    diffWorkspace({ sandbox, workspace, baseline, timeoutMs: 60_000, maxPatchBytes });
  return { repo, workspace, shell, diff };
}

/** Applies a patch with `git apply` to a fresh copy of the repository and returns the copy. */
async function applyToFreshCopy(repo: string, patch: string): Promise<string> {
  const copy = await makeTree({});
  await cp(repo, copy, { recursive: true });
  await writeFile(join(copy, "..patch"), patch);
  execFileSync("git", ["apply", "--whitespace=nowarn", "..patch"], {
    cwd: copy,
    env: { PATH: process.env.PATH },
  });
  await rm(join(copy, "..patch"));
  return copy;
}

describe.concurrent("diffWorkspace", { timeout: 60_000 }, () => {
  it("is the workspace against the pristine baseline, whatever the agent did to its .git", async () => {
    const { repo, shell, diff } = await setup();
    // Edits, a new binary file, a deletion; then the agent commits, and finally deletes .git outright.
    await shell(
      "echo \"print('bye')\" > src/app.py && printf '\\x00\\x01\\x02' > blob.bin && rm old.txt && " +
        "git add -A && git commit -qm wip && git log --oneline | wc -l",
    );
    const committed = await diff();
    expect(committed.error).toBeUndefined();
    expect(committed.patch).toContain("diff --git a/src/app.py b/src/app.py");
    expect(committed.patch).toContain("deleted file mode 100644");
    expect(committed.patch).toContain("GIT binary patch");
    expect(committed.patch).not.toMatch(/^diff --git a\/\.git/m);

    await shell("rm -rf .git");
    expect((await diff()).patch).toBe(committed.patch);

    const fixed = await applyToFreshCopy(repo, committed.patch);
    expect(await readFile(join(fixed, "src/app.py"), "utf8")).toBe("print('bye')\n");
    expect(await readFile(join(fixed, "blob.bin"))).toEqual(Buffer.from([0, 1, 2]));
    expect(await readFile(join(fixed, "old.txt")).catch(() => "gone")).toBe("gone");
  });

  it("runs no command planted in the workspace's git config (fsmonitor, clean filter)", async () => {
    const { shell, diff, workspace } = await setup();
    const planted = await shell(
      "git config core.fsmonitor 'touch /workspace/FSMONITOR_RAN; false' && " +
        "git config filter.evil.clean 'touch /workspace/FILTER_RAN; cat' && " +
        "echo '*.md filter=evil' > .gitattributes && echo change >> README.md && git add -A && git status --short",
    );
    // The planted commands are live for the agent's own git...
    expect(planted).toContain("M  README.md");
    await rm(join(workspace, "FSMONITOR_RAN"));
    await rm(join(workspace, "FILTER_RAN"));
    // ...but not for the diff gagar takes.
    const { patch } = await diff();
    expect(patch).toContain("+change");
    expect(patch).toContain("+*.md filter=evil");
    await expect(readFile(join(workspace, "FSMONITOR_RAN"))).rejects.toThrow();
    await expect(readFile(join(workspace, "FILTER_RAN"))).rejects.toThrow();
  });

  it("gives an empty patch with the reason when the diff is too large or git fails", async () => {
    const { shell, diff, workspace } = await setup();
    await shell("head -c 200000 /dev/urandom | base64 > big.txt");
    expect(await diff(10_000)).toEqual({ patch: "", error: "the diff is larger than 10000 bytes" });
    await rm(join(workspace, "big.txt"));
    // An unreadable file (mode 000) stops `git add` even for the file's owner.
    await writeFile(join(workspace, "locked.py"), "x = 1\n");
    await chmod(join(workspace, "locked.py"), 0o000);
    const failed = await diff();
    expect(failed.patch).toBe("");
    expect(failed.error).toMatch(/^git failed on the workspace \(128\): .*locked\.py/s);
  });
});
