import { describe, expect, it } from "vitest";
import type { CandidateRun } from "./candidate-run.ts";
import { ReadyRuns } from "./run-pool.ts";

/** Just enough of a CandidateRun for the pool's bookkeeping (it never starts or delivers). */
function fakeRun(name: string, ended = false): CandidateRun & { name: string } {
  return {
    name,
    ended,
    plan: { runs: [], files: [], support: [], locate: () => null },
    workspace: {} as CandidateRun["workspace"],
    ready: Promise.resolve(),
    go: () => Promise.reject(new Error("not in this test")),
    cancel: () => Promise.resolve(),
  };
}

describe("ReadyRuns", () => {
  it("hands a task's run out once", () => {
    const discarded: string[] = [];
    const pool = new ReadyRuns(2, (r) => discarded.push((r as ReturnType<typeof fakeRun>).name));
    pool.put("a", fakeRun("a1"));
    expect(pool.has("a")).toBe(true);
    expect((pool.take("a") as ReturnType<typeof fakeRun>).name).toBe("a1");
    expect(pool.take("a")).toBeUndefined();
    expect(discarded).toEqual([]);
  });

  it("keeps one run per task and discards the one it replaces", () => {
    const discarded: string[] = [];
    const pool = new ReadyRuns(4, (r) => discarded.push((r as ReturnType<typeof fakeRun>).name));
    pool.put("a", fakeRun("a1"));
    pool.put("a", fakeRun("a2"));
    expect(discarded).toEqual(["a1"]);
    expect((pool.take("a") as ReturnType<typeof fakeRun>).name).toBe("a2");
  });

  it("discards the run waiting longest when full", () => {
    const discarded: string[] = [];
    const pool = new ReadyRuns(2, (r) => discarded.push((r as ReturnType<typeof fakeRun>).name));
    pool.put("a", fakeRun("a"));
    pool.put("b", fakeRun("b"));
    pool.put("c", fakeRun("c"));
    expect(discarded).toEqual(["a"]);
    expect(pool.has("a")).toBe(false);
    expect(pool.drain(() => true).map((r) => (r as ReturnType<typeof fakeRun>).name)).toEqual(["b", "c"]);
    expect(pool.has("b")).toBe(false);
  });

  it("never hands out a run that ended while waiting, and discards it", () => {
    const discarded: string[] = [];
    const pool = new ReadyRuns(2, (r) => discarded.push((r as ReturnType<typeof fakeRun>).name));
    pool.put("a", fakeRun("dead", true));
    expect(pool.take("a")).toBeUndefined();
    expect(discarded).toEqual(["dead"]);
  });

  it("with no capacity, keeps nothing", () => {
    const discarded: string[] = [];
    const pool = new ReadyRuns(0, (r) => discarded.push((r as ReturnType<typeof fakeRun>).name));
    pool.put("a", fakeRun("a"));
    expect(pool.has("a")).toBe(false);
    expect(discarded).toEqual(["a"]);
  });
});
