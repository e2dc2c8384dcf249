import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSpec } from "./run-spec.ts";
import { reaperArgs, stageScript, withStagedRun } from "./staged-run.ts";
import { UidPool } from "./uid-pool.ts";

const scratch = mkdtempSync(join(tmpdir(), "gagar-staged-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("withStagedRun", () => {
  it("stages every source on a mount point of a private run directory, then cleans up", async () => {
    const ws = join(scratch, "ws");
    const out = join(scratch, "out");
    mkdirSync(ws);
    mkdirSync(out);
    writeFileSync(join(scratch, "test_h.py"), "");
    const spec = await checkSpec({
      argv: ["true"],
      workspace: ws,
      outputDir: out,
      readOnly: [{ source: join(scratch, "test_h.py"), target: "/workspace/tests/test_h.py" }],
      timeoutMs: 1000,
    });
    const pool = new UidPool({ base: 61490, size: 1 });
    let runDir = "";
    const uid = await withStagedRun(
      spec,
      { pool, chown: "/usr/bin/chown", mount: "/usr/bin/mount", runDirBase: scratch },
      async (staged) => {
        runDir = staged.runDir;
        expect(lstatSync(staged.runDir).mode & 0o777).toBe(0o711);
        expect(lstatSync(staged.workspace).isDirectory()).toBe(true);
        expect(lstatSync(staged.readOnly[0]!).isFile()).toBe(true);
        expect(readFileSync(staged.fstab, "utf8")).toBe(
          [
            `${ws} ${staged.workspace} none bind,nosuid,nodev 0 0`,
            `${out} ${staged.outputDir} none bind,nosuid,nodev 0 0`,
            `${join(scratch, "test_h.py")} ${staged.readOnly[0]} none bind,nosuid,nodev 0 0`,
            "",
          ].join("\n"),
        );
        expect(staged.stageArgs.slice(0, 3)).toEqual(["--norc", "--noprofile", "-c"]);
        expect(staged.stageArgs.slice(4)).toEqual([
          "gagar-stage",
          "/usr/bin/chown",
          "61490:61490",
          "2",
          ws,
          out,
          "/usr/bin/mount",
          staged.fstab,
          "",
          // ulimit -u, -v (KiB), -f (KiB), -n, -t: the default limits (limits.ts)
          "256",
          String((4 * 2 ** 30) / 1024),
          String((256 * 2 ** 20) / 1024),
          "4096",
          "600",
        ]);
        expect(existsSync(join(ws, "tests/test_h.py"))).toBe(true);
        return staged.uid;
      },
    );
    expect(uid).toBe(61490);
    expect(existsSync(runDir)).toBe(false);
    const again = await pool.acquire(1000);
    await again.release();
  });
});

describe("stageScript and reaperArgs", () => {
  it("fail the staging with exit 125 and keep paths out of the script text", () => {
    const script = stageScript(["/usr/bin/ip link set lo up"]);
    expect(script).toContain("/usr/bin/ip link set lo up || exit 125");
    expect(script).toContain('exec -c "$@"');
    expect(script).not.toContain("/tmp");
  });

  it("reap inside a private pid and mount namespace that dies with the verifier", () => {
    expect(reaperArgs({ unshare: "/usr/bin/unshare" }, ["--net"])).toEqual([
      "--pdeathsig",
      "KILL",
      "--",
      "/usr/bin/unshare",
      "--fork",
      "--pid",
      "--kill-child",
      "--mount",
      "--propagation",
      "private",
      "--net",
      "--",
    ]);
  });
});
