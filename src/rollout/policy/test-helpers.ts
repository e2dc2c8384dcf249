import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createBwrapBackend } from "../../sandbox/bwrap.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";

/**
 * Shared setup of the policy source's tests. The sandbox is the real bwrap backend: these tests
 * are about what untrusted code can and cannot reach, which only a real sandbox can show. On a host
 * without it they fail with the backend's own list of what is missing rather than skip.
 */
let checked: Promise<SandboxBackend> | undefined;

export function sandboxForTests(): Promise<SandboxBackend> {
  checked ??= (async () => {
    const backend = createBwrapBackend();
    const availability = await backend.check();
    if (!availability.available) {
      throw new Error(`the policy tests need the bwrap sandbox: ${availability.missing.join("; ")}`);
    }
    return backend;
  })();
  return checked;
}

const trees: string[] = [];

/** A fresh temporary directory holding `files` (path → content); `removeTrees` deletes it. */
export async function makeTree(
  files: Record<string, string>,
  prefix = "gagar-policy-test-",
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  trees.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Deletes every directory `makeTree` made (call it in `afterAll`). */
export async function removeTrees(): Promise<void> {
  await Promise.all(trees.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
