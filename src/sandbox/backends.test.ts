import { describe, expect, it } from "vitest";
import { createBwrapBackend } from "./bwrap.ts";
import { sandboxContract } from "./contract.test-suite.ts";
import { createUnsandboxedBackend } from "./unsandboxed.ts";
import { createUnshareBackend } from "./unshare.ts";

/*
 * Runs the one contract suite against every backend this host offers. bwrap is the backend gagar
 * recommends and CI installs, so its absence fails here unless GAGAR_ALLOW_NO_BWRAP=1 says that this
 * host is known to lack it. Each backend gets its own small uid range: four uids force uid reuse in the
 * back-to-back case, and the ranges keep this file apart from other test files running in parallel.
 */

const allowNoBwrap = process.env.GAGAR_ALLOW_NO_BWRAP === "1";

const bwrap = createBwrapBackend({ uidRange: { base: 61200, size: 4 } });
const bwrapAvailability = await bwrap.check();

describe("bwrap backend on this host", () => {
  it.skipIf(allowNoBwrap && !bwrapAvailability.available)(
    "is available (install bubblewrap, run as root; GAGAR_ALLOW_NO_BWRAP=1 skips)",
    () => {
      expect(bwrapAvailability.missing).toEqual([]);
      expect(bwrapAvailability.available).toBe(true);
    },
  );
});
if (bwrapAvailability.available)
  sandboxContract({ name: "bwrap", create: () => bwrap, isolated: true, deniesPtrace: true });

const unshare = createUnshareBackend({ uidRange: { base: 61210, size: 4 } });
const unshareAvailability = await unshare.check();
if (unshareAvailability.available) {
  sandboxContract({ name: "unshare", create: () => unshare, isolated: true });
} else {
  it.skip(`unshare backend: unavailable here (${unshareAvailability.missing.join("; ")})`, () => {});
}

const warnings: string[] = [];
sandboxContract({
  name: "unsandboxed",
  create: () => createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn: (m) => warnings.push(m) }),
  isolated: false,
});

describe("unsandboxed backend", () => {
  it("warned on every run of the contract suite", () => {
    expect(warnings.length).toBeGreaterThanOrEqual(20);
    expect(warnings.every((w) => w.includes("UNSANDBOXED"))).toBe(true);
  });
});
