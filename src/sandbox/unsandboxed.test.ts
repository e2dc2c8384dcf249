import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { createUnsandboxedBackend, UNSANDBOXED_WARNING } from "./unsandboxed.ts";

describe("unsandboxed backend", () => {
  it("cannot be created without acknowledging that nothing is isolated", () => {
    expect(() => createUnsandboxedBackend({} as never)).toThrow(ConfigError);
    expect(() => createUnsandboxedBackend({ acknowledgeNoIsolation: false })).toThrow(/explicit opt-in/);
  });

  it("warns on every single run and lists its weaknesses", { timeout: 15_000 }, async () => {
    const warnings: string[] = [];
    const backend = createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn: (m) => warnings.push(m) });
    const ws = mkdtempSync(join(tmpdir(), "gagar-unsandboxed-test-"));
    try {
      for (let i = 0; i < 3; i++) await backend.run({ argv: ["/bin/true"], workspace: ws, timeoutMs: 5000 });
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
    expect(warnings).toEqual([UNSANDBOXED_WARNING, UNSANDBOXED_WARNING, UNSANDBOXED_WARNING]);
    const availability = await backend.check();
    expect(availability.weaknesses.join("\n")).toMatch(/no isolation at all/);
  });

  it("maps /workspace and /out in argv onto the host directories", { timeout: 15_000 }, async () => {
    const backend = createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn: () => {} });
    const scratch = mkdtempSync(join(tmpdir(), "gagar-unsandboxed-test-"));
    try {
      const result = await backend.run({
        argv: ["/bin/sh", "-c", 'echo "$PWD"; echo /out/r.xml'],
        workspace: scratch,
        outputDir: join(scratch),
        timeoutMs: 5000,
      });
      expect(result.stdout).toBe(`${scratch}\n${scratch}/r.xml\n`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
