import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../store/run-store.ts";
import { tempDir } from "../store/testing/fixtures.ts";
import { loadRun, locateRun } from "./load-run.ts";
import { FIXTURE_RUN, writeRunFixture } from "./testing/run-fixture.ts";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());
function dir(): string {
  const t = tempDir();
  cleanup = t.cleanup;
  return t.dir;
}

describe("locateRun", () => {
  it("finds the store from a run's output folder, one run's folder, or the file", () => {
    const out = dir();
    const store = writeRunFixture(out);
    expect(locateRun(out)).toEqual({ storeFile: store });
    expect(locateRun(store)).toEqual({ storeFile: store });
    const runDir = join(out, "runs", FIXTURE_RUN);
    mkdirSync(runDir, { recursive: true });
    expect(locateRun(runDir)).toEqual({ storeFile: store, runId: FIXTURE_RUN });
  });

  it("says what to give when the path holds no store", () => {
    const out = dir();
    expect(() => locateRun(join(out, "nope"))).toThrow(/nope: does not exist/);
    expect(() => locateRun(out)).toThrow(/has no gagar.sqlite: give the folder a run wrote/);
  });
});

describe("loadRun", () => {
  it("reads a run's steps, groups, verdicts, rankings and advantages from the store", () => {
    const out = dir();
    const storeFile = writeRunFixture(out);
    const run = loadRun({ storeFile });
    expect(run.runId).toBe(FIXTURE_RUN);
    expect(run.config).toEqual({ groupSize: 4, grader: "static", out });
    expect(run.files.runDir).toBe(join(out, "runs", FIXTURE_RUN));
    expect(run.files.config.exists).toBe(false);
    expect(run.steps.map((s) => [s.idx, s.status, s.groups.length])).toEqual([
      [0, "done", 2],
      [1, "done", 1],
    ]);
    const [kept, dropped] = run.steps[0]!.groups;
    expect(kept!.kept).toBe(true);
    expect(kept!.ranking?.ranking).toEqual([["calc-r1"], ["calc-r2"], ["calc-r3"]]);
    const r3 = kept!.candidates.find((c) => c.id === "calc-r3")!;
    expect(r3.verdict).toEqual({ passed: true, reason: "passed", detail: undefined });
    expect(r3.tokens).toBe(2500);
    expect(r3.advantage?.tier).toBe(2);
    expect(r3.findings.map((f) => [f.kind, f.source])).toEqual([["hard-coding", "grader"]]);
    const passing = kept!.candidates.filter((c) => c.verdict?.passed);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(passing.map((c) => c.advantage!.advantage))).toBeCloseTo(
      sum(passing.map((c) => c.advantage!.baseAdvantage)),
      9,
    );
    expect(dropped!).toMatchObject({ kept: false, dropReason: "all-fail", ranking: undefined });
    expect(dropped!.candidates[0]!.advantage).toBeUndefined();
    expect(run.steps[0]!.metrics?.groupsGenerated).toBe(2);
  });

  it("reads a named run, and fails naming the store for a missing run or an empty store", () => {
    const out = dir();
    const storeFile = writeRunFixture(out);
    expect(loadRun({ storeFile, runId: FIXTURE_RUN }).runId).toBe(FIXTURE_RUN);
    expect(() => loadRun({ storeFile, runId: "run-x" })).toThrow(`${storeFile}: has no run "run-x"`);
    const empty = join(out, "empty.sqlite");
    openStore(empty).close();
    expect(() => loadRun({ storeFile: empty })).toThrow(`${empty}: holds no run yet`);
    const text = join(out, "notes.txt");
    writeFileSync(text, "not a store");
    expect(() => loadRun({ storeFile: text })).toThrow(/notes.txt: is not a gagar run store/);
  });

  it("shows a step that is still running, with no metrics yet", () => {
    const out = dir();
    const storeFile = writeRunFixture(out);
    const store = openStore(storeFile);
    const step = store.beginStep(FIXTURE_RUN, 2);
    store.saveGroup(step.id, { id: "g-running", taskId: "calc", round: 0 }, [{ id: "c1", patch: "x" }]);
    store.close();
    const running = loadRun({ storeFile }).steps[2]!;
    expect(running).toMatchObject({ status: "running", metrics: null });
    expect(running.groups[0]!.kept).toBeNull();
    expect(running.groups[0]!.candidates[0]!.verdict).toBeUndefined();
  });
});
