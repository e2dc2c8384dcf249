import { execFileSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IdmappedLowers } from "./idmapped-lowers.ts";
import { buildSnapshot } from "./snapshot.ts";
import { WorkspaceFactory } from "./workspace.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-ws-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function makeRepo(): string {
  const repo = join(root, "repo");
  mkdirSync(join(repo, "pkg", "__pycache__"), { recursive: true });
  mkdirSync(join(repo, ".git", "hooks"), { recursive: true });
  writeFileSync(join(repo, "pkg", "mod.py"), "x = 1\n");
  writeFileSync(join(repo, "pkg", "__pycache__", "mod.cpython-311.pyc"), "junk");
  writeFileSync(join(repo, "stale.pyc"), "junk");
  writeFileSync(join(repo, ".git", "hooks", "post-checkout"), "#!/bin/sh\n", { mode: 0o755 });
  writeFileSync(join(repo, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
  return repo;
}

describe("snapshot and workspaces", () => {
  const snapshot = buildSnapshot(makeRepo(), join(root, "snap"));

  it("leaves out history and bytecode, keeps the executable bit", () => {
    expect([...snapshot.paths].sort()).toEqual(["pkg", "pkg/mod.py", "run.sh"]);
    expect(statSync(join(snapshot.dir, "run.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(snapshot.dir, "pkg", "mod.py")).mode & 0o777).toBe(0o644);
  });

  const isRoot = process.getuid?.() === 0;

  it.runIf(isRoot)("gives each candidate an overlay that never writes through to the snapshot", async () => {
    const factory = new WorkspaceFactory(join(root, "runs-a"));
    mkdirSync(join(root, "runs-a"));
    const a = await factory.create(snapshot);
    const b = await factory.create(snapshot);
    expect(await a.attach()).toBe(true);
    expect(await b.attach()).toBe(true);
    expect(a.strategy).toBe("overlay");
    writeFileSync(join(a.dir, "pkg", "mod.py"), "x = 2\n");
    writeFileSync(join(a.dir, "new.py"), "y = 1\n");
    chownSync(join(a.dir, "run.sh"), 61000, 61000);
    expect(readFileSync(join(snapshot.dir, "pkg", "mod.py"), "utf8")).toBe("x = 1\n");
    expect(statSync(join(snapshot.dir, "run.sh")).uid).toBe(0);
    expect(existsSync(join(snapshot.dir, "new.py"))).toBe(false);
    expect(readFileSync(join(b.dir, "pkg", "mod.py"), "utf8")).toBe("x = 1\n");
    expect(existsSync(join(b.dir, "new.py"))).toBe(false);
    await a.close();
    await b.close();
    expect(existsSync(a.dir)).toBe(false);
  });

  it.runIf(isRoot)("bounds what a candidate can write with the tmpfs size", async () => {
    mkdirSync(join(root, "runs-b"));
    const factory = new WorkspaceFactory(join(root, "runs-b"), { bytes: 2 * 2 ** 20, extraInodes: 100 });
    const ws = await factory.create(snapshot);
    await ws.attach();
    expect(() => writeFileSync(join(ws.dir, "fill.bin"), Buffer.alloc(4 * 2 ** 20))).toThrow(/ENOSPC/);
    await ws.close();
  });

  it.runIf(isRoot)(
    "hands a workspace to a run uid through an idmapped lower layer, without touching the snapshot",
    async () => {
      mkdirSync(join(root, "runs-c"));
      const warnings: string[] = [];
      const lowers = new IdmappedLowers((m) => warnings.push(m));
      const factory = new WorkspaceFactory(join(root, "runs-c"), undefined, undefined, lowers);
      const ws = await factory.create(snapshot);
      try {
        expect(await ws.attach(61490)).toBe(true);
        expect(warnings).toEqual([]);
        for (const path of ["", "pkg", "pkg/mod.py", "run.sh"])
          expect(statSync(join(ws.dir, path)).uid).toBe(61490);
        expect(statSync(ws.outDir).uid).toBe(61490);
        // What the run uid writes lands in the candidate's upper layer; the snapshot stays root's.
        execFileSync(
          "setpriv",
          [
            "--reuid=61490",
            "--regid=61490",
            "--clear-groups",
            "sh",
            "-c",
            "echo 2 > pkg/mod.py && chmod +x pkg/mod.py && touch new.py",
          ],
          { cwd: ws.dir },
        );
        expect(readFileSync(join(ws.dir, "pkg", "mod.py"), "utf8")).toBe("2\n");
        expect(readFileSync(join(snapshot.dir, "pkg", "mod.py"), "utf8")).toBe("x = 1\n");
        expect(statSync(join(snapshot.dir, "pkg", "mod.py")).uid).toBe(0);
        expect(statSync(join(snapshot.dir, "pkg", "mod.py")).mode & 0o777).toBe(0o644);
        expect(existsSync(join(snapshot.dir, "new.py"))).toBe(false);
      } finally {
        await ws.close();
        await lowers.close();
      }
    },
  );
});
