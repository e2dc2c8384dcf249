import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxBackend } from "../../sandbox/types.ts";
import { type FileToolCall, runFileTool } from "./file-tools.ts";
import { makeTree, removeTrees, sandboxForTests } from "./test-helpers.ts";

let sandbox: SandboxBackend;
beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(removeTrees);

const SOURCE = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n";

async function setup(files: Record<string, string> = { "geo/shapes.py": SOURCE }) {
  const workspace = await makeTree(files);
  const controlDir = await makeTree({});
  const run = (call: FileToolCall) =>
    runFileTool({ sandbox, workspace, controlDir, timeoutMs: 30_000, readLimitBytes: 1 << 20 }, call, 0);
  return { workspace, controlDir, run };
}

describe.concurrent("file tools in the sandbox", { timeout: 60_000 }, () => {
  it("read_file shows numbered lines, for relative and /workspace paths, and cleans up its call file", async () => {
    const { run, controlDir } = await setup();
    const listing = await run({ tool: "read_file", path: "geo/shapes.py" });
    expect(listing.split("\n").slice(0, 2)).toEqual(["     1\tdef area(w, h):", "     2\t    return w * h"]);
    expect(await run({ tool: "read_file", path: "/workspace/geo/shapes.py" })).toBe(listing);
    expect(await readdir(controlDir)).toEqual([]);
  });

  it("read_file of a missing file or a FIFO is an error for the model, not a hang", async () => {
    const { run, workspace } = await setup();
    execFileSync("mkfifo", [join(workspace, "pipe")]);
    expect(await run({ tool: "read_file", path: "nope.py" })).toBe(
      "Error: nope.py: no such file or directory.",
    );
    expect(await run({ tool: "read_file", path: "pipe" })).toBe("Error: pipe is not a regular file.");
  });

  it("write_file creates parent directories and reports the bytes written", async () => {
    const { run, workspace } = await setup();
    expect(await run({ tool: "write_file", path: "new/deep/é.txt", content: "héllo\n" })).toBe(
      "Wrote 7 bytes to new/deep/é.txt",
    );
    expect(await readFile(join(workspace, "new/deep/é.txt"), "utf8")).toBe("héllo\n");
  });

  it("refuses paths outside /workspace", async () => {
    const { run, workspace } = await setup();
    expect(await run({ tool: "write_file", path: "../escape.txt", content: "x" })).toBe(
      "Error: ../escape.txt is outside /workspace.",
    );
    expect(await run({ tool: "read_file", path: "/etc/passwd" })).toBe(
      "Error: /etc/passwd is outside /workspace.",
    );
    expect(await readdir(join(workspace, ".."))).not.toContain("escape.txt");
  });

  it("str_replace edits exactly one occurrence and explains when there is none or several", async () => {
    const { run, workspace } = await setup();
    const file = join(workspace, "geo/shapes.py");
    expect(await run({ tool: "str_replace", path: "geo/shapes.py", old: "missing", new: "x" })).toBe(
      "Error: `old` must occur exactly once in geo/shapes.py, found 0 occurrences. No changes made.",
    );
    expect(await run({ tool: "str_replace", path: "geo/shapes.py", old: "(w, h)", new: "(a, b)" })).toBe(
      "Error: `old` must occur exactly once in geo/shapes.py, found 2 occurrences. No changes made.",
    );
    expect(await readFile(file, "utf8")).toBe(SOURCE);
    expect(
      await run({
        tool: "str_replace",
        path: "geo/shapes.py",
        old: "return 2 * (w + h)",
        new: "return 2*w + 2*h",
      }),
    ).toBe("Edited geo/shapes.py: replaced 1 occurrence.");
    expect(await readFile(file, "utf8")).toBe(SOURCE.replace("return 2 * (w + h)", "return 2*w + 2*h"));
  });

  it("never reads or writes through a symlink that leaves the workspace", async () => {
    const { run, workspace } = await setup();
    const host = await makeTree({ "sentinel.txt": "untouched\n", "secret.txt": "host secret 7c1e\n" });
    await symlink(join(host, "sentinel.txt"), join(workspace, "evil.txt"));
    await symlink(host, join(workspace, "evildir"));
    await symlink(join(host, "secret.txt"), join(workspace, "secret.txt"));
    await symlink("/usr/bin", join(workspace, "bin"));

    expect(await run({ tool: "write_file", path: "evil.txt", content: "pwned\n" })).toBe(
      "Error: evil.txt is a symbolic link to a missing target; not followed.",
    );
    expect(await run({ tool: "write_file", path: "evildir/planted.txt", content: "pwned\n" })).toBe(
      "Error: evildir is a symbolic link to a missing target; not followed.",
    );
    expect(await run({ tool: "read_file", path: "secret.txt" })).not.toContain("7c1e");
    expect(await run({ tool: "write_file", path: "bin/env", content: "pwned\n" })).toBe(
      "Error: bin/env resolves to /usr/bin/env, which is outside /workspace.",
    );
    expect(await readFile(join(host, "sentinel.txt"), "utf8")).toBe("untouched\n");
    expect((await readdir(host)).sort()).toEqual(["secret.txt", "sentinel.txt"]);
  });

  it("answers a path through a regular file, a directory, a link loop and an over-long name with an error", async () => {
    const { run, workspace } = await setup();
    await symlink("loop-b", join(workspace, "loop-a"));
    await symlink("loop-a", join(workspace, "loop-b"));
    expect(await run({ tool: "read_file", path: "geo/shapes.py/x" })).toBe(
      "Error: geo/shapes.py/x: a component of the path is not a directory.",
    );
    expect(await run({ tool: "write_file", path: "geo/shapes.py/x/y.py", content: "x" })).toBe(
      "Error: geo/shapes.py/x/y.py: a component of the path is not a directory.",
    );
    expect(await run({ tool: "str_replace", path: "geo/shapes.py/inner", old: "w", new: "v" })).toBe(
      "Error: geo/shapes.py/inner: a component of the path is not a directory.",
    );
    expect(await run({ tool: "read_file", path: "geo" })).toBe(
      "Error: geo is a directory, not a file. Use shell (e.g. ls geo) to list it.",
    );
    expect(await run({ tool: "write_file", path: "geo", content: "x" })).toBe("Error: geo: is a directory.");
    expect(await run({ tool: "read_file", path: "loop-a" })).toBe(
      "Error: loop-a: too many levels of symbolic links.",
    );
    const long = `${"n".repeat(300)}.py`;
    expect(await run({ tool: "write_file", path: long, content: "x" })).toBe(
      `Error: ${long}: file name too long.`,
    );
    expect(await readFile(join(workspace, "geo/shapes.py"), "utf8")).toBe(SOURCE);
  });

  it("reports a tool process that dies without answering to the model instead of failing", async () => {
    const workspace = await makeTree({ "a.txt": "a\n" });
    const controlDir = await makeTree({});
    const output = await runFileTool(
      { sandbox, workspace, controlDir, timeoutMs: 1, readLimitBytes: 1 << 20 },
      { tool: "read_file", path: "a.txt" },
      0,
    );
    expect(output).toMatch(/^Error: read_file was stopped at its 0\.001 s time limit before it could answer/);
    expect(await readdir(controlDir)).toEqual([]);
  });

  it("follows a link that stays inside the workspace", async () => {
    const { run, workspace } = await setup();
    await mkdir(join(workspace, "alias"));
    await symlink("../geo/shapes.py", join(workspace, "alias/shapes.py"));
    expect(await run({ tool: "write_file", path: "alias/shapes.py", content: "x = 1\n" })).toBe(
      "Wrote 6 bytes to alias/shapes.py",
    );
    expect(await readFile(join(workspace, "geo/shapes.py"), "utf8")).toBe("x = 1\n");
  });
});
