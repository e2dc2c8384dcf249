import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { defaultLimits, prlimitArgs, resolveLimits, resolveOutputCap } from "./limits.ts";

describe("resolveLimits", () => {
  it("fills unset limits from the defaults", () => {
    expect(resolveLimits({ processes: 64 })).toEqual({ ...defaultLimits, processes: 64 });
    expect(resolveLimits(undefined)).toEqual(defaultLimits);
  });

  it("rejects limits that are not positive integers", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) {
      expect(() => resolveLimits({ memoryBytes: bad })).toThrow(ConfigError);
    }
  });

  it("rejects unknown limit names", () => {
    expect(() => resolveLimits({ bogus: 1 } as never)).toThrow(/unknown sandbox limit "bogus"/);
  });
});

describe("prlimitArgs", () => {
  it("passes byte sizes above 2^31 unmangled (4 << 30 would be 0 in JavaScript)", () => {
    const args = prlimitArgs(resolveLimits({}));
    expect(args).toContain(`--as=${4 * 2 ** 30}`);
    expect(args).toContain("--as=4294967296");
    expect(args).toContain("--core=0");
    expect(args.every((a) => !a.endsWith("=0") || a === "--core=0")).toBe(true);
  });
});

describe("resolveOutputCap", () => {
  it("defaults to 1 MiB and rejects nonsense", () => {
    expect(resolveOutputCap({ argv: ["x"], workspace: "/", timeoutMs: 1 })).toBe(2 ** 20);
    expect(() => resolveOutputCap({ argv: ["x"], workspace: "/", timeoutMs: 1, outputCapBytes: 0 })).toThrow(
      ConfigError,
    );
  });
});
