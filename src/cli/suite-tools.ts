import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { versionOf } from "../sandbox/host-tools.ts";

/**
 * Programs gagar's test suite and its optional features use besides the verifier's own tools, each
 * at the Debian path the tests look for it (never found through PATH), with what needs it and the
 * package that provides it. `gagar doctor` lists them.
 */
export interface SuiteTool {
  name: string;
  /** The version line, or undefined when the program is absent or does not run. */
  version: string | undefined;
  usedBy: string;
  install: string;
}

/** Debian's mocha: its CLI needs Debian's node_modules folder on NODE_PATH. */
export const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";
export const DEBIAN_NODE_PATH = "/usr/share/nodejs";

/** Each program with the Debian package that provides it and how to read its version. */
export const SUITE_TOOLS: readonly {
  name: string;
  debianPackage: string;
  usedBy: string;
  version: () => string | undefined;
}[] = [
  {
    name: "redis-server",
    debianPackage: "redis-server",
    usedBy: "the queue and service tests (each starts its own); gagar serve --queue needs a Redis somewhere",
    version: () => versionOf("/usr/bin/redis-server"),
  },
  {
    name: "chromium",
    debianPackage: "chromium",
    usedBy: "the report's browser tests and screenshots (skipped, saying so, without it)",
    version: () => versionOf("/usr/bin/chromium"),
  },
  {
    name: "mocha",
    debianPackage: "mocha",
    usedBy: "the mocha runner's hermetic tests and the adversarial suite in a Debian root filesystem",
    version: mochaVersion,
  },
];

export function suiteTools(): SuiteTool[] {
  return SUITE_TOOLS.map((t) => ({
    name: t.name,
    version: t.version(),
    usedBy: t.usedBy,
    install: `apt-get install ${t.debianPackage}`,
  }));
}

function mochaVersion(): string | undefined {
  if (!existsSync(DEBIAN_MOCHA)) return undefined;
  const result = spawnSync(process.execPath, [DEBIAN_MOCHA, "--version"], {
    encoding: "utf8",
    timeout: 10_000,
    env: { NODE_PATH: DEBIAN_NODE_PATH },
  });
  const line = result.status === 0 ? result.stdout.trim().split("\n")[0] : undefined;
  return line ? `mocha ${line} (${DEBIAN_MOCHA})` : undefined;
}
