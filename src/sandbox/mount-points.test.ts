import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareMountPoints } from "./mount-points.ts";
import { type CheckedSpec, checkSpec } from "./run-spec.ts";

let scratch: string;
let ws: string;
let out: string;
let source: string;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "gagar-mountpoints-"));
  ws = join(scratch, "ws");
  out = join(scratch, "out");
  source = join(scratch, "hidden");
  mkdirSync(ws);
  mkdirSync(out);
  mkdirSync(join(source, "dir"), { recursive: true });
  writeFileSync(join(source, "test_a.py"), "");
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const spec = (readOnly: { source: string; target: string }[]): Promise<CheckedSpec> =>
  checkSpec({ argv: ["true"], workspace: ws, outputDir: out, readOnly, timeoutMs: 1000 });

describe("prepareMountPoints", () => {
  it("creates missing parents and the mount point itself", async () => {
    const replaced = await prepareMountPoints(
      await spec([
        { source: join(source, "test_a.py"), target: "/workspace/tests/unit/test_a.py" },
        { source: join(source, "dir"), target: "/out/fixtures" },
      ]),
    );
    expect(replaced).toEqual([]);
    expect(lstatSync(join(ws, "tests/unit")).isDirectory()).toBe(true);
    expect(lstatSync(join(ws, "tests/unit/test_a.py")).isFile()).toBe(true);
    expect(lstatSync(join(out, "fixtures")).isDirectory()).toBe(true);
  });

  it("removes a planted symlink component instead of following it", async () => {
    const elsewhere = join(scratch, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(ws, "tests"));
    const replaced = await prepareMountPoints(
      await spec([{ source: join(source, "test_a.py"), target: "/workspace/tests/test_a.py" }]),
    );
    expect(replaced).toEqual(["/workspace/tests"]);
    expect(lstatSync(join(ws, "tests")).isDirectory()).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("replaces a final component of the wrong kind, and a symlink at the target", async () => {
    mkdirSync(join(ws, "test_a.py"));
    writeFileSync(join(ws, "dir"), "");
    symlinkSync("/etc/passwd", join(ws, "test_b.py"));
    const replaced = await prepareMountPoints(
      await spec([
        { source: join(source, "test_a.py"), target: "/workspace/test_a.py" },
        { source: join(source, "dir"), target: "/workspace/dir" },
        { source: join(source, "test_a.py"), target: "/workspace/test_b.py" },
      ]),
    );
    expect(replaced).toEqual(["/workspace/test_a.py", "/workspace/dir", "/workspace/test_b.py"]);
    expect(lstatSync(join(ws, "test_a.py")).isFile()).toBe(true);
    expect(lstatSync(join(ws, "dir")).isDirectory()).toBe(true);
    expect(lstatSync(join(ws, "test_b.py")).isFile()).toBe(true);
  });

  it("leaves targets outside /workspace and /out to the backend", async () => {
    const replaced = await prepareMountPoints(
      await spec([{ source: join(source, "dir"), target: "/opt/env" }]),
    );
    expect(replaced).toEqual([]);
    expect(readdirSync(ws)).toEqual([]);
  });
});
