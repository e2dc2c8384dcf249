import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { checkSpec, isWithin } from "./run-spec.ts";

const dir = mkdtempSync(join(tmpdir(), "gagar-spec-"));
const file = join(dir, "test_x.py");
writeFileSync(file, "");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { argv: ["python3", "-m", "pytest"], workspace: dir, timeoutMs: 1000 };

describe("checkSpec", () => {
  it("resolves paths, kinds, env and limits", async () => {
    const checked = await checkSpec({
      ...base,
      outputDir: dir,
      readOnly: [
        { source: file, target: "/workspace/tests/test_x.py" },
        { source: dir, target: "/opt/env" },
      ],
    });
    expect(checked.readOnly).toEqual([
      { source: file, target: "/workspace/tests/test_x.py", kind: "file" },
      { source: dir, target: "/opt/env", kind: "dir" },
    ]);
    expect(checked.env.PATH).toBe("/usr/bin:/bin");
    expect(checked.limits.processes).toBe(256);
    expect(checked.outputCapBytes).toBe(2 ** 20);
  });

  it.each([
    [{ argv: [] }, /argv must not be empty/],
    [{ argv: ["a\0b"] }, /NUL/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ timeoutMs: 2 ** 31 }, /timeoutMs/],
    [{ workspace: join(dir, "missing") }, /not an existing directory/],
    [{ outputDir: file }, /not an existing directory/],
    [{ readOnly: [{ source: file, target: "relative/path" }] }, /absolute, normalized/],
    [{ readOnly: [{ source: file, target: "/workspace/../etc/passwd" }] }, /absolute, normalized/],
    [{ readOnly: [{ source: file, target: "/workspace" }] }, /would hide the whole/],
    [{ readOnly: [{ source: file, target: "/usr/lib/python3/x.py" }] }, /inside \/usr/],
    [{ readOnly: [{ source: file, target: "/tmp/x" }] }, /inside \/tmp/],
    [{ readOnly: [{ source: file, target: "/out/x" }] }, /no outputDir/],
    [{ readOnly: [{ source: join(dir, "nope"), target: "/workspace/x" }] }, /not an existing file/],
  ])("rejects %j", async (change, message) => {
    const run = checkSpec({ ...base, ...change });
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(run).rejects.toThrow(message);
  });
});

describe("isWithin", () => {
  it("matches the path itself and paths below, not look-alikes", () => {
    expect(isWithin("/workspace", "/workspace")).toBe(true);
    expect(isWithin("/workspace/a", "/workspace")).toBe(true);
    expect(isWithin("/workspaces", "/workspace")).toBe(false);
  });
});
