/**
 * The adversarial regression suite (test/support/adversarial-suite.ts) on the host environment with
 * the fixture tasks' own runners (pytest, node:test). test/verify-adversarial.rootfs.test.ts runs it
 * again in a Debian root filesystem with mocha (network-gated: it builds the root with mmdebstrap).
 */
import { adversarialSuite } from "./support/adversarial-suite.ts";

// Its own sandbox uids: other test files verify at the same time, and the "no process outlived its
// run" check counts every process of the suite's uid range.
adversarialSuite({ uidRange: { base: 61300, size: 32 } });
