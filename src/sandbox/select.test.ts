import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { defaultLimits, selectBackend } from "./select.ts";
import { createUnshareBackend } from "./unshare.ts";

const allowNoBwrap = process.env.GAGAR_ALLOW_NO_BWRAP === "1";
const unshareWorks = (await createUnshareBackend().check()).available;

describe("selectBackend", () => {
  it.skipIf(allowNoBwrap)(
    "auto picks bwrap on this host, without a warning",
    { timeout: 20_000 },
    async () => {
      const warnings: string[] = [];
      const backend = await selectBackend("auto", { warn: (m) => warnings.push(m) });
      expect(backend.name).toBe("bwrap");
      expect(warnings).toEqual([]);
    },
  );

  it.runIf(unshareWorks)(
    "says loudly when an explicitly chosen backend is weaker than bwrap",
    { timeout: 20_000 },
    async () => {
      const warnings: string[] = [];
      const backend = await selectBackend("unshare", { warn: (m) => warnings.push(m) });
      expect(backend.name).toBe("unshare");
      expect(warnings.join("\n")).toMatch(/WARNING: using the "unshare" sandbox backend, weaker than bwrap/);
    },
  );

  it("never picks unsandboxed on its own: with no working sandbox, auto is a ConfigError", {
    timeout: 20_000,
  }, async () => {
    // uid 65534 is `nobody`: a pool over it would kill nobody's processes, so no backend accepts it.
    const pick = selectBackend("auto", { uidRange: { base: 65534, size: 1 }, warn: () => {} });
    await expect(pick).rejects.toBeInstanceOf(ConfigError);
    await expect(pick).rejects.toThrow(/no sandbox backend works on this host[\s\S]*--allow-unsandboxed/);
  });

  it("names what is missing when a requested backend does not work", { timeout: 20_000 }, async () => {
    const pick = selectBackend("bwrap", { uidRange: { base: 65534, size: 1 } });
    await expect(pick).rejects.toThrow(
      /sandbox backend "bwrap" is not available on this host: .*nobody \(uid 65534\)/,
    );
  });

  it("runs unsandboxed only with the explicit opt-in, and warns", async () => {
    await expect(selectBackend("unsandboxed")).rejects.toBeInstanceOf(ConfigError);
    const warnings: string[] = [];
    const backend = await selectBackend("unsandboxed", {
      allowUnsandboxed: true,
      warn: (m) => warnings.push(m),
    });
    expect(backend.name).toBe("unsandboxed");
    expect(warnings.join("\n")).toMatch(/UNSANDBOXED/);
  });

  it("rejects unknown backend names", async () => {
    await expect(selectBackend("docker" as never)).rejects.toThrow(/unknown sandbox backend "docker"/);
  });

  it("re-exports the default limits", () => {
    expect(defaultLimits.memoryBytes).toBe(4 * 2 ** 30);
  });
});
