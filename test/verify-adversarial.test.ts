/**
 * The adversarial regression suite (test/support/adversarial-suite.ts) on the host environment with
 * the fixture tasks' own runners (pytest, node:test). test/verify-adversarial.rootfs.test.ts runs it
 * again in a Debian root filesystem with mocha (network-gated: it builds the root with mmdebstrap).
 */
import { adversarialSuite } from "./support/adversarial-suite.ts";

adversarialSuite();
