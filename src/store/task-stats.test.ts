import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { memoryStore } from "./testing/fixtures.ts";

describe("task stats", () => {
  it("accumulate attempts, passes, groups and informative groups per task", () => {
    const store = memoryStore();
    store.recordTaskOutcome("calc", { attempts: 8, passes: 3, informative: true }, 0);
    store.recordTaskOutcome("calc", { attempts: 8, passes: 8, informative: false }, 2);
    store.recordTaskOutcome("ini", { attempts: 4, passes: 0, informative: false }, 1);
    expect(store.taskStats()).toEqual(
      new Map([
        ["calc", { attempts: 16, passes: 11, groups: 2, informativeGroups: 1, lastStep: 2 }],
        ["ini", { attempts: 4, passes: 0, groups: 1, informativeGroups: 0, lastStep: 1 }],
      ]),
    );
  });

  it("refuse impossible outcomes", () => {
    const store = memoryStore();
    expect(() => store.recordTaskOutcome("t", { attempts: 2, passes: 3, informative: true }, 0)).toThrow(
      InvariantError,
    );
    expect(() => store.recordTaskOutcome("t", { attempts: 2, passes: -1, informative: true }, 0)).toThrow(
      InvariantError,
    );
    expect(store.taskStats().size).toBe(0);
  });

  it("land together with the group decision in one transaction, or not at all", () => {
    const store = memoryStore();
    const step = store.beginStep(store.createRun({}), 0);
    store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [{ id: "r1", patch: "p" }]);
    expect(() =>
      store.transaction(() => {
        store.markGroup("g1", true);
        store.recordTaskOutcome("t", { attempts: 1, passes: 1, informative: false }, 0);
        throw new Error("killed");
      }),
    ).toThrow("killed");
    expect(store.getStepGroups(step.id)[0]?.kept).toBeNull();
    expect(store.taskStats().size).toBe(0);

    store.transaction(() => {
      store.markGroup("g1", true);
      store.recordTaskOutcome("t", { attempts: 1, passes: 1, informative: false }, 0);
    });
    expect(store.getStepGroups(step.id)[0]?.kept).toBe(true);
    expect(store.taskStats().get("t")?.groups).toBe(1);
  });
});
