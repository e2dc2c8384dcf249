/**
 * Behavioural probes end to end on fixtures of every supported runner (test/fixtures/probe): probe
 * modules generated from the hidden tests, run with the real runners (Debian's pytest and mocha,
 * node:test; jest and vitest from the npm registry, network-gated) outside the sandbox, observations
 * read back, and candidates compared with and without the reference. Every hard-coding must get a
 * critical finding; no honest alternative may.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeRun } from "../src/probe/channel.ts";
import { type Comparison, compareProbeRuns } from "../src/probe/compare.ts";
import { type ProbePlan, planProbes } from "../src/probe/plan.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { loadProbeFixture, probeFixtureNames, writeTree } from "./support/probe-fixtures.ts";
import { DEBIAN_MOCHA, type JsTools, runProbes, runTests } from "./support/probe-harness.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-probe-fixtures-"));
const NPM_RUNNERS = new Set(["jest", "vitest"]);
let npmTools: Promise<JsTools> | undefined;

/** jest and vitest, installed once from the npm registry for the fixtures that need them. */
function tools(): Promise<JsTools> {
  npmTools ??= (async () => {
    const dir = join(root, "npm-tools");
    execFileSync("mkdir", ["-p", dir]);
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--ignore-scripts",
        "jest@29.7.0",
        "vitest@2.1.9",
      ],
      { cwd: dir, stdio: "ignore", timeout: 600_000 },
    );
    return { nodeModules: join(dir, "node_modules") };
  })();
  return npmTools;
}

const summary: string[] = [];
afterAll(() => {
  if (summary.length) process.stdout.write(`\nbehavioural probes on the fixtures:\n${summary.join("\n")}\n`);
  rmSync(root, { recursive: true, force: true });
});

function skipReason(runner: string): string | undefined {
  if (NPM_RUNNERS.has(runner)) return NETWORK_SKIP;
  if (runner === "mocha" && !existsSync(DEBIAN_MOCHA))
    return "Debian's mocha is not installed (apt-get install mocha)";
  return undefined;
}

for (const name of probeFixtureNames()) {
  const fixture = loadProbeFixture(name);
  const skip = skipReason(fixture.runner);
  describe.skipIf(skip !== undefined)(
    `behavioural probes: ${name} (${fixture.runner})${skip ? ` (skipped: ${skip})` : ""}`,
    () => {
      let plan: ProbePlan;
      let js: JsTools | undefined;
      const workspaces = new Map<string | null, string>();
      const passes = new Map<string, boolean>();
      let reference: ProbeRun[];
      const runs = new Map<string, ProbeRun>();
      let withReference: Comparison;
      let withoutReference: Comparison;

      const workspace = (subject: string | null) => {
        const ws = join(root, name, subject ?? "base");
        writeTree(ws, fixture.tree(subject));
        if (js) symlinkSync(js.nodeModules, join(ws, "node_modules"));
        workspaces.set(subject, ws);
        return ws;
      };

      beforeAll(async () => {
        if (NPM_RUNNERS.has(fixture.runner)) js = await tools();
        plan = await planProbes({ runner: fixture.runner, tests: fixture.hidden });
        for (const subject of ["reference", ...fixture.candidates.map((c) => c.id)]) {
          const ws = workspace(subject);
          passes.set(subject, runTests(ws, fixture.runner, [...fixture.hidden.keys()], js).status === 0);
        }
        const ref = workspaces.get("reference")!;
        reference = [runProbes(ref, plan, js).run, runProbes(ref, plan, js).run];
        for (const c of fixture.candidates) runs.set(c.id, runProbes(workspaces.get(c.id)!, plan, js).run);
        const candidates = fixture.candidates.map((c) => ({ id: c.id, runs: [runs.get(c.id)!] }));
        withReference = compareProbeRuns({ probes: plan.probes, reference, candidates });
        withoutReference = compareProbeRuns({ probes: plan.probes, candidates });
        const caught = (c: Comparison, expect: "critical" | "clean") =>
          fixture.candidates.filter(
            (f) =>
              f.expect === expect &&
              c.candidates.find((x) => x.id === f.id)!.findings.some((x) => x.severity === "critical") ===
                (expect === "critical"),
          ).length;
        const hard = fixture.candidates.filter((c) => c.expect === "critical").length;
        const clean = fixture.candidates.length - hard;
        summary.push(
          `  ${name} (${fixture.runner}): ${plan.probes.length} probes; with the reference ${caught(withReference, "critical")}/${hard} hard-codings caught, ${caught(withReference, "clean")}/${clean} honest fixes left alone; without it ${caught(withoutReference, "critical")}/${hard} and ${caught(withoutReference, "clean")}/${clean}`,
        );
      }, 900_000);

      it("has candidates that all pass the hidden tests, as the verifier would have seen them", () => {
        expect(Object.fromEntries(passes)).toEqual(
          Object.fromEntries([...passes.keys()].map((k) => [k, true])),
        );
      });

      it("runs every probe of the reference to its end, the same way twice", () => {
        expect(plan.skipped).toEqual([]);
        for (const run of reference) {
          const ended = new Set(
            [...run.observations.values()].filter((o) => o.slot === "end").map((o) => o.probe),
          );
          expect(plan.probes.filter((p) => !ended.has(p.id)).map((p) => p.id)).toEqual([]);
          expect(run.malformed).toBe(0);
        }
        expect(withReference.unstable).toEqual([]);
      });

      for (const candidate of fixture.candidates) {
        const verb = candidate.expect === "critical" ? "catches" : "leaves alone";
        it(`${verb} ${candidate.id}: ${candidate.note}`, () => {
          for (const comparison of [withReference, withoutReference]) {
            const result = comparison.candidates.find((c) => c.id === candidate.id)!;
            const critical = result.findings.filter((f) => f.severity === "critical");
            expect(critical.length > 0, result.findings.map((f) => f.message).join("\n")).toBe(
              candidate.expect === "critical",
            );
            if (candidate.expect === "critical") expect(critical[0]!.kind).toBe("behaviour-divergence");
          }
        });
      }

      if (fixture.runner === "pytest")
        it("says when a test reported passed does not hold on its own inputs (the second verdict channel)", () => {
          // The unfixed code, as if its run had been forged to pass: its probes still give the old values.
          const ws = workspace(null);
          expect(runTests(ws, fixture.runner, [...fixture.hidden.keys()]).status).not.toBe(0);
          const forged = Object.fromEntries(plan.probes.map((p) => [p.testId, "passed" as const]));
          const twice = [runProbes(ws, plan).run, runProbes(ws, plan).run];
          const c = compareProbeRuns({
            probes: plan.probes,
            reference,
            candidates: [{ id: "forged", runs: twice, tests: forged }],
          });
          const channel = c.candidates[0]!.findings.filter((f) => f.channel === "verdict");
          expect(channel.map((f) => f.severity)).toEqual(["critical"]);
          const honest = compareProbeRuns({
            probes: plan.probes,
            reference,
            candidates: [{ id: "honest", runs: [runs.get(fixture.candidates[0]!.id)!], tests: forged }],
          });
          expect(honest.candidates[0]!.findings.filter((f) => f.channel === "verdict")).toEqual([]);
        });
    },
  );
}
