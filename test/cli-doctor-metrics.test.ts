import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServe } from "./support/gagar-process.ts";

/**
 * `gagar serve`'s /metrics and `gagar doctor` as a user meets them: real processes. Each compiles
 * its sources through tsx at start (seconds apiece on a loaded machine), hence the timeouts.
 */
const ROOT = resolve(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "gagar-doctor-metrics-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("gagar serve's /metrics and gagar doctor", { timeout: 300_000 }, () => {
  it("/metrics names the process metrics gagar_process_…, never process twice", async () => {
    const { serve, url } = await startServe(["--port", "0", "--out", join(scratch, "serve")]);
    try {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toMatch(/^gagar_process_cpu_user_seconds_total \d/m);
      expect(text).not.toMatch(/process_process/);
      const names = new Set([...text.matchAll(/^(\w+)[{ ]/gm)].map((m) => m[1]!));
      expect([...names].filter((n) => !n.startsWith("gagar_"))).toEqual([]);
    } finally {
      await serve.stop();
    }
  });

  it("gagar doctor reports redis-server, chromium and mocha, which the tests need", () => {
    const r = spawnSync(process.execPath, [join(ROOT, "bin/gagar.js"), "doctor"], {
      cwd: scratch,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(r.status).toBe(0);
    for (const tool of ["redis-server", "chromium", "mocha"])
      expect(r.stdout).toMatch(new RegExp(`^  ${tool} +\\S`, "m"));
    expect(r.stdout).toMatch(/^for the test suite and optional features$/m);
  });
});
