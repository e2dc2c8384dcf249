import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { buildSandboxEnv, sandboxBaseEnv } from "./env.ts";

describe("buildSandboxEnv", () => {
  it("starts from the base environment and lets the spec add and override", () => {
    const env = buildSandboxEnv({ LANG: "en_US.UTF-8", PYTEST_ADDOPTS: "-x" });
    expect(env).toEqual({ ...sandboxBaseEnv, LANG: "en_US.UTF-8", PYTEST_ADDOPTS: "-x" });
  });

  it("never includes anything from the host's environment", () => {
    process.env.GAGAR_ENV_TEST_SECRET = "leak";
    try {
      expect(Object.keys(buildSandboxEnv(undefined))).not.toContain("GAGAR_ENV_TEST_SECRET");
    } finally {
      delete process.env.GAGAR_ENV_TEST_SECRET;
    }
  });

  it("rejects names that are not plain identifiers and values with NUL", () => {
    for (const name of ["", "A=B", "1X", "A B", "-x"])
      expect(() => buildSandboxEnv({ [name]: "v" })).toThrow(ConfigError);
    expect(() => buildSandboxEnv({ A: "x\0y" })).toThrow(ConfigError);
  });
});
