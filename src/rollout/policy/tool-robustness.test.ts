import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend } from "../../sandbox/types.ts";
// @ts-expect-error: plain JavaScript without type declarations (it runs inside the sandbox).
import { answerCall } from "./file-tool.mjs";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";
import { createToolExecutor } from "./tool-executor.ts";

/**
 * Whatever the model sends, every tool answers: random paths (through files, into directories,
 * `..`, NUL bytes, link loops, over-long names, the workspace itself) and random arguments (huge,
 * empty, malformed) give a result text, never an exception that would fail the step, and nothing
 * outside the workspace changes.
 */

const answer = answerCall as (call: unknown, root: string) => { ok: boolean; output: string };

/** A workspace with the shapes that trip file code up, and a sibling directory that must stay untouched. */
async function playground(): Promise<{ workspace: string; outside: string }> {
  const base = await makeTree({
    "ws/src/app.py": "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x + 1\n",
    "ws/README.md": "# app\n",
    "ws/empty.txt": "",
    "outside/secret.txt": "host secret\n",
  });
  const workspace = join(base, "ws");
  await mkdir(join(workspace, "src/pkg"), { recursive: true });
  await symlink("loop-b", join(workspace, "loop-a"));
  await symlink("loop-a", join(workspace, "loop-b"));
  await symlink("nowhere", join(workspace, "dangling"));
  await symlink("../outside", join(workspace, "escape"));
  await symlink("src", join(workspace, "src-link"));
  return { workspace, outside: join(base, "outside") };
}

const segment = fc.oneof(
  fc.constantFrom("src", "app.py", "src/app.py", "pkg", "README.md", "empty.txt", "loop-a", "dangling"),
  fc.constantFrom("escape", "src-link", "..", ".", "", "new", "new.py", "a\0b", "é/ü.txt", " "),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: 250, max: 400 }).map((n) => "x".repeat(n)),
);

const path = fc.oneof(
  { weight: 6, arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/")) },
  {
    weight: 2,
    arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((p) => `/workspace/${p.join("/")}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("/workspace", "/", "/etc/passwd", "../outside/secret.txt", "src/app.py/"),
  },
  { weight: 1, arbitrary: fc.integer({ min: 5_000, max: 70_000 }).map((n) => "d/".repeat(n / 2)) },
);

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom("return x + 1", "def f(x):", "", "\0", "x"),
  fc.integer({ min: 100_000, max: 1_500_000 }).map((n) => "y".repeat(n)),
);

const fileCall = fc.oneof(
  fc.record({ tool: fc.constant("read_file"), args: fc.record({ path }) }),
  fc.record({ tool: fc.constant("write_file"), args: fc.record({ path, content: text }) }),
  fc.record({ tool: fc.constant("str_replace"), args: fc.record({ path, old: text, new: text }) }),
);

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

describe("the file tool script", () => {
  it("answers every call with a result text and never touches anything outside the workspace", async () => {
    const { workspace, outside } = await playground();
    await fc.assert(
      fc.asyncProperty(fileCall, async ({ tool, args }) => {
        const result = answer({ tool, args, readLimitBytes: 1 << 20, workspace: "/workspace" }, workspace);
        expect(typeof result.output).toBe("string");
        if (!result.ok) expect(result.output).toMatch(/^Error: /);
        expect(await readdir(outside)).toEqual(["secret.txt"]);
        expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("host secret\n");
      }),
      { numRuns: 250, seed: 1616 },
    );
  });
});

describe("the tool executor in the sandbox", { timeout: 120_000 }, () => {
  const anyCall = fc.oneof(
    fileCall.map(({ tool, args }) => ({ name: tool, arguments: JSON.stringify(args) })),
    fc.record({
      name: fc.constant("shell"),
      arguments: fc
        .oneof(
          fc.constantFrom("cat src/app.py/x", "ls loop-a/", "printf 'a\\0b'", "echo $((1/0))", "exit 7"),
          fc.constant("echo\0hidden"),
          fc.integer({ min: 120_000, max: 300_000 }).map((n) => `echo ${"z".repeat(n)}`),
        )
        .map((command) => JSON.stringify({ command })),
    }),
    fc.record({
      name: fc.constantFrom("read_file", "shell", "submit", "rm_rf", ""),
      arguments: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("{", "[]", "null", '{"path": 3}')),
    }),
  );

  it("answers random calls, each with a text, and only a sandbox failure could reject", async () => {
    const { workspace, outside } = await playground();
    const execute = createToolExecutor({
      sandbox,
      workspace,
      controlDir: await makeTree({}),
      commandTimeoutMs: 20_000,
      commandOutputCapBytes: 1 << 20,
      fileToolTimeoutMs: 20_000,
      fileReadLimitBytes: 1 << 20,
      toolOutputCapBytes: 4096,
    });
    await writeFile(join(workspace, "marker"), "still here\n");
    let id = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(anyCall, { minLength: 1, maxLength: 3 }), async (calls) => {
        for (const call of calls) {
          const outcome = await execute({ id: `c${id++}`, ...call });
          expect(typeof outcome.output).toBe("string");
          expect(outcome.output.length).toBeGreaterThan(0);
        }
        expect(await readdir(outside)).toEqual(["secret.txt"]);
      }),
      { numRuns: 12, seed: 16 },
    );
  });
});
