/**
 * The adversarial regression suite again, with the same expected outcomes, where nothing comes from the
 * host's toolchain: every task runs in a Debian trixie root filesystem made here with mmdebstrap
 * (python3 3.13 and Debian's nodejs, where the host has 3.11 and NodeSource's node), and the JavaScript
 * task runs with mocha (Debian's package in that root) instead of node:test. The trusted runner comes
 * from the host's /usr under /gagar/host (host-runtime.ts). Needs the Debian mirror to build the root.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adversarialSuite } from "./support/adversarial-suite.ts";
import { debianRootfs, NETWORK_SKIP } from "./support/debian-rootfs.ts";

let rootfs = "";

adversarialSuite({
  name: "Debian trixie rootfs, mocha",
  disabled: NETWORK_SKIP,
  environmentCache: join(tmpdir(), "gagar-test-rootfs", "environments"),
  uidRange: { base: 61340, size: 32 },
  skip: {
    "j-h2-reexec-stub-child":
      "it re-runs node:test's per-file child; mocha runs every test file in one process",
  },
  outcomes: {
    "j-h2-rewrite-child-events": {
      reasons: ["tests-failed"],
      findings: [],
      why: "it rewrites the event stream node:test's per-file children write on stdout; mocha reports otherwise, so the rewrite changes nothing and, stdout not being mocha's result channel, is no evidence",
    },
  },
  before: async () => {
    rootfs = await debianRootfs();
  },
  task: (spec, dir) => {
    const environment = { kind: "rootfs", path: rootfs };
    const common = {
      schemaVersion: 2,
      id: spec.id,
      statement: spec.statement,
      language: spec.language,
      environment,
      failToPass: spec.failToPass,
      passToPass: spec.passToPass,
      // The full-tree scans of some attacks (a9) also walk the host's /usr under /gagar/host here.
      timeoutSec: spec.id === "calc-div-zero" ? 30 : spec.timeoutSec,
      protectedPaths: spec.protectedPaths,
    };
    if (spec.language === "python")
      return { ...common, test: { runner: "pytest", command: (spec.test as { command: string[] }).command } };
    // The node:test fixture as a mocha suite: mocha's `it` under the name the tests use.
    for (const file of ["tests/test/stats.test.js", "repo/test/stats.test.js"]) {
      const path = join(dir, file);
      const text = readFileSync(path, "utf8").replace(
        /^const \{[^}]*\} = require\("node:test"\);$/m,
        "const test = it;",
      );
      writeFileSync(path, text);
    }
    return { ...common, test: { runner: "mocha", command: ["mocha", "--reporter={reporter}", "{tests}"] } };
  },
});
