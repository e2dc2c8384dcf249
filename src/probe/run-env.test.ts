import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PROBE_CHANNEL_ENV } from "./plan.ts";
import { probeRunEnv } from "./run-env.ts";

// The order a Python process iterates a set of strings in: salted per process unless the seed is pinned.
const setOrder = (env: Record<string, string>) =>
  execFileSync("python3", ["-c", "print(list({chr(97 + i) for i in range(26)}))"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
  });

describe("the environment of a probe run", () => {
  it("names the channel and pins Python's hash seed, unless the task sets its own", () => {
    expect(probeRunEnv({}, "/proc/self/fd/4")).toEqual({
      PYTHONHASHSEED: "0",
      [PROBE_CHANNEL_ENV]: "/proc/self/fd/4",
    });
    expect(probeRunEnv({ PYTHONHASHSEED: "random", LANG: "C" }, "c")).toEqual({ [PROBE_CHANNEL_ENV]: "c" });
    expect(probeRunEnv(undefined, "c").PYTHONHASHSEED).toBe("0");
  });

  it("makes two runs of the same Python code iterate a set of strings alike, where unpinned runs differ", () => {
    const pinned = probeRunEnv({}, "unused");
    const orders = new Set(Array.from({ length: 4 }, () => setOrder(pinned)));
    expect(orders.size).toBe(1);
    // The premise: without the pin, runs differ (26 letters: 8 runs in one order by chance is negligible).
    const unpinned = new Set(Array.from({ length: 8 }, () => setOrder({})));
    expect(unpinned.size).toBeGreaterThan(1);
  });
});
