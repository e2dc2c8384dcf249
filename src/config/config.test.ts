import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../errors.ts";
import { RUN_CONFIG_CHECKS } from "../pipeline/config-checks.ts";
import { DEFAULTS } from "./defaults.ts";
import { loadConfig } from "./load.ts";

function configFile(body: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "gagar-config-"));
  mkdirSync(join(dir, "tasks"));
  mkdirSync(join(dir, "rollouts"));
  const file = join(dir, "gagar.config.json");
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body));
  return file;
}

const base = { tasks: "tasks", rollouts: { source: "replay", replayDir: "rollouts" } };
const policy = { source: "policy", baseUrl: "http://127.0.0.1:1/v1", model: "m" };

describe("loadConfig", () => {
  it("fills defaults and resolves paths against the config's folder", () => {
    const file = configFile(base);
    const config = loadConfig(file);
    expect(config.groupSize).toBe(DEFAULTS.groupSize);
    expect(config.advantage).toEqual(DEFAULTS.advantage);
    expect(config.tasks).toBe(join(file, "..", "tasks"));
  });

  it("vetoes passes with a critical finding unless told not to: no default rewards a hack", () => {
    expect(loadConfig(configFile(base)).advantage.veto).toBe("critical");
    expect(loadConfig(configFile({ ...base, advantage: { veto: "none" } })).advantage.veto).toBe("none");
  });

  it("gives policy rollouts their limits and resolves the scratch folder against the config's folder", () => {
    const file = configFile({ ...base, rollouts: { ...policy, scratchDir: "rollouts" } });
    const config = loadConfig(file);
    expect(config.rollouts).toMatchObject({
      rolloutTimeoutSec: DEFAULTS.policy.rolloutTimeoutSec,
      workspaceBytes: DEFAULTS.policy.workspaceBytes,
      workspaceInodes: DEFAULTS.policy.workspaceInodes,
      logprobs: true,
      scratchDir: join(file, "..", "rollouts"),
    });
  });

  const bad: [string, unknown, RegExp][] = [
    ["an unknown key", { ...base, grupSize: 8 }, /gagar\.config\.json: Unrecognized key: "grupSize"/],
    ["an unknown nested key", { ...base, advantage: { lamda: 0.3 } }, /field advantage\).*"lamda"/],
    ["a missing task pack", { ...base, tasks: "nowhere" }, /field tasks\).*does not exist/],
    ["n < 2", { ...base, groupSize: 1 }, /field groupSize\).*at least 2/],
    ["B < 1", { ...base, batchGroups: 0 }, /field batchGroups\)/],
    ["λ = 1", { ...base, advantage: { lambda: 1 } }, /field advantage\.lambda\)/],
    [
      "an unknown estimator",
      { ...base, advantage: { estimator: "ppo" } },
      /field advantage\.estimator\).*unknown estimator/,
    ],
    [
      "policy without a model",
      { ...base, rollouts: { source: "policy", baseUrl: "http://127.0.0.1:1/v1" } },
      /field rollouts\.model\)/,
    ],
    [
      "a workspace quota too small for any repository",
      { ...base, rollouts: { ...policy, workspaceBytes: 4096 } },
      /field rollouts\.workspaceBytes\).*16 MiB/,
    ],
    [
      "a scratch folder that does not exist",
      { ...base, rollouts: { ...policy, scratchDir: "nowhere" } },
      /field rollouts\.scratchDir\).*nowhere does not exist/,
    ],
    [
      "a run_probe time of zero",
      { ...base, probes: { runProbeCallSec: 0 } },
      /field probes\.runProbeCallSec\)/,
    ],
    ["malformed JSON", "{ tasks: ", /not valid JSON/],
  ];
  for (const [what, body, message] of bad) {
    it(`rejects ${what}, naming the key`, () => {
      const file = configFile(body);
      expect(() => loadConfig(file, RUN_CONFIG_CHECKS)).toThrow(InputError);
      expect(() => loadConfig(file, RUN_CONFIG_CHECKS)).toThrow(message);
    });
  }
});
