import { existsSync } from "node:fs";
import { NETWORK_SKIP } from "./debian-rootfs.ts";
import { chromiumMissing } from "./headless-chromium.ts";

/**
 * Says at the start of a run which groups of tests will be skipped on this machine and why, since the
 * default reporter lists skipped files without their reasons. The reasons are the ones the suites
 * themselves use for `skipIf`.
 */
export default function setup(): void {
  const skipped: string[] = [];
  if (NETWORK_SKIP)
    skipped.push(
      `the network tests (environments built from the npm registry and the Debian mirror): ${NETWORK_SKIP}`,
    );
  const chromium = chromiumMissing();
  if (chromium) skipped.push(`the report's browser tests: ${chromium}`);
  if (!existsSync("/usr/share/nodejs/mocha/bin/mocha.js"))
    skipped.push(
      "the mocha runner's hermetic contract tests: Debian's mocha is not installed (apt-get install mocha)",
    );
  if (skipped.length)
    process.stdout.write(`\nskipped on this machine:\n${skipped.map((s) => `  - ${s}`).join("\n")}\n\n`);
}
