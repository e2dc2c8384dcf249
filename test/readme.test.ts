import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SUITE_TOOLS } from "../src/cli/suite-tools.ts";

/**
 * The README's first block is what a new user copies: the demo, and the tests. The test command
 * must work in a root container (no sudo there) on a fresh Debian, so it updates the package lists
 * and installs everything `gagar doctor` says the tests need.
 */
const readme = readFileSync(join(resolve(import.meta.dirname, ".."), "README.md"), "utf8");
const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
/** Commands of the block, continuation lines joined, comments dropped. */
const commands = firstBlock
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .map((l) => l.replace(/\s+#.*$/, "").trim())
  .filter(Boolean);

describe("the README's first commands", () => {
  it("are the demo and the tests, neither behind sudo", () => {
    expect(commands).toHaveLength(2);
    expect(commands[0]).toBe("npm ci && npx gagar demo");
    expect(commands[1]).toMatch(/&& npm ci && npm test$/);
    for (const command of commands) expect(command).not.toMatch(/(^|&&\s*|\|\s*)sudo\b/);
  });

  it("install, after apt-get update, the sandbox's tools and what doctor lists for the tests", () => {
    const install = /^apt-get update && apt-get install -y ([\w\s.-]+?) &&/.exec(commands[1]!);
    expect(install, commands[1]).not.toBeNull();
    const packages = install![1]!.split(/\s+/).filter(Boolean);
    const needed = ["git", "bubblewrap", "python3-pytest", ...SUITE_TOOLS.map((t) => t.debianPackage)];
    expect(packages.sort()).toEqual([...new Set(needed)].sort());
  });
});
