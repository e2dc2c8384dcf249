import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { defaultRunId } from "./runs.ts";
import { memoryStore } from "./testing/fixtures.ts";

describe("runs", () => {
  it("store the resolved config with the run and read it back", () => {
    const store = memoryStore();
    const config = { groupSize: 8, grader: { kind: "static", lambda: 0.5 }, tasks: ["a", "b"] };
    const id = store.createRun(config);
    expect(id).toBe("run-1");
    expect(store.getRun(id)).toEqual({ id, createdAt: "2026-01-01T00:00:00.000Z", config });
    expect(store.getRun("nope")).toBeUndefined();
  });

  it("give the latest run by creation time, then by insertion order", () => {
    const sameInstant = new Date(Date.UTC(2026, 0, 1));
    const store = memoryStore({ now: () => sameInstant });
    expect(store.latestRun()).toBeUndefined();
    store.createRun({ n: 1 });
    store.createRun({ n: 2 });
    expect(store.latestRun()?.config).toEqual({ n: 2 });
  });

  it("accept only JSON objects as config and metrics", () => {
    const store = memoryStore();
    expect(() => store.createRun([1, 2])).toThrow(/run config must be a JSON object/);
    const step = store.beginStep(store.createRun({}), 0);
    expect(() => store.finishStep(step.id, [])).toThrow(/step metrics must be a JSON object/);
    expect(store.getStep(step.runId, 0)?.status).toBe("running");
  });

  it("make default run ids sortable by time and distinct", () => {
    const now = new Date(Date.UTC(2026, 1, 3, 4, 5, 6, 789));
    expect(defaultRunId(now)).toMatch(/^run-20260203T040506Z-[0-9a-f]{4}$/);
  });
});

describe("steps", () => {
  it("resume: beginning a running step again returns the same step", () => {
    const store = memoryStore();
    const run = store.createRun({});
    const first = store.beginStep(run, 0);
    const again = store.beginStep(run, 0);
    expect(again).toEqual(first);
    expect(first).toMatchObject({ runId: run, idx: 0, status: "running", finishedAt: null, metrics: null });
    expect(store.getStep(run, 0)).toEqual(first);
  });

  it("finish with metrics, after which the step cannot begin or finish again", () => {
    const store = memoryStore();
    const run = store.createRun({});
    const step = store.beginStep(run, 0);
    const done = store.finishStep(step.id, { passRate: 0.25, keptGroups: 4 });
    expect(done).toMatchObject({ id: step.id, status: "done", metrics: { passRate: 0.25, keptGroups: 4 } });
    expect(done.finishedAt! > done.startedAt).toBe(true);
    expect(() => store.beginStep(run, 0)).toThrow(InvariantError);
    expect(() => store.finishStep(step.id, {})).toThrow(/already done/);
    expect(() => store.finishStep(999, {})).toThrow(/no step with id 999/);
  });

  it("refuse steps of unknown runs and bad indices", () => {
    const store = memoryStore();
    expect(() => store.beginStep("ghost", 0)).toThrow(/no run "ghost"/);
    const run = store.createRun({});
    expect(() => store.beginStep(run, -1)).toThrow(InvariantError);
    expect(() => store.beginStep(run, 1.5)).toThrow(InvariantError);
  });

  it("list metrics of finished steps by index, per run", () => {
    const store = memoryStore();
    const run = store.createRun({});
    const other = store.createRun({});
    for (const idx of [2, 0, 1]) store.beginStep(run, idx);
    store.finishStep(store.getStep(run, 2)!.id, { step: 2 });
    store.finishStep(store.getStep(run, 0)!.id, { step: 0 });
    store.finishStep(store.beginStep(other, 0).id, { step: "other" });
    expect(store.stepMetrics(run)).toEqual([
      { idx: 0, metrics: { step: 0 } },
      { idx: 2, metrics: { step: 2 } },
    ]);
  });

  it("store non-finite metrics as null, as JSON does", () => {
    const store = memoryStore();
    const step = store.beginStep(store.createRun({}), 0);
    expect(store.finishStep(step.id, { meanTokens: Number.NaN }).metrics).toEqual({ meanTokens: null });
  });
});
