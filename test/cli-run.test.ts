import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

function runWith(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), "gagar-cli-run-"));
  const file = join(dir, "gagar.config.json");
  writeFileSync(file, JSON.stringify(config));
  const r = spawnSync(process.execPath, [join(root, "bin/gagar.js"), "run", "--config", file], {
    encoding: "utf8",
  });
  return { code: r.status, stderr: r.stderr };
}

const good = {
  tasks: join(root, "examples/tasks"),
  rollouts: { source: "replay", replayDir: join(root, "examples/rollouts") },
};

describe("gagar run: bad config", () => {
  const cases: [string, unknown, RegExp][] = [
    ["an unknown key", { ...good, batchSize: 4 }, /Unrecognized key: "batchSize"/],
    ["a missing task pack", { ...good, tasks: "/nonexistent/pack" }, /\(field tasks\).*does not exist/],
    ["n < 2", { ...good, groupSize: 1 }, /\(field groupSize\)/],
    ["B < 1", { ...good, batchGroups: 0 }, /\(field batchGroups\)/],
  ];
  for (const [what, config, message] of cases) {
    it(`rejects ${what} with exit 2 and the key`, () => {
      const r = runWith(config);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
    });
  }
});
