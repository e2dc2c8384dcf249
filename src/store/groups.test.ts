import { describe, expect, it } from "vitest";
import { InvariantError } from "../errors.ts";
import { patchSha256 } from "./patch-sha.ts";
import { memoryStore } from "./testing/fixtures.ts";

function started() {
  const store = memoryStore();
  const run = store.createRun({});
  return { store, run, step: store.beginStep(run, 0) };
}

describe("groups", () => {
  it("round-trip groups and candidates in insertion order, with patch hashes", () => {
    const { store, step } = started();
    const trajectory = { turns: 7, tokens: 1570, messagesRef: "transcripts/z.json", finishReason: "submit" };
    store.saveGroup(step.id, { id: "g-b", taskId: "calc", round: 0 }, [
      { id: "z", patch: "diff z", trajectory },
      { id: "a", patch: "diff a" },
      { id: "m", patch: "diff z" },
    ]);
    store.saveGroup(step.id, { id: "g-a", taskId: "ini", round: 1 }, [{ id: "r1", patch: "" }]);

    const groups = store.getStepGroups(step.id);
    expect(groups.map((g) => g.id)).toEqual(["g-b", "g-a"]);
    const [first, second] = groups;
    expect(first).toMatchObject({ stepId: step.id, taskId: "calc", round: 0, kept: null, dropReason: null });
    expect(first!.candidates).toEqual([
      { id: "z", patch: "diff z", patchSha256: patchSha256("diff z"), trajectory },
      { id: "a", patch: "diff a", patchSha256: patchSha256("diff a"), trajectory: {} },
      { id: "m", patch: "diff z", patchSha256: patchSha256("diff z"), trajectory: {} },
    ]);
    expect(second!.candidates.map((c) => c.id)).toEqual(["r1"]);
    expect(store.getStepGroups(step.id + 1)).toEqual([]);
  });

  it("record the dynamic-sampling decision", () => {
    const { store, step } = started();
    store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [{ id: "r1", patch: "p" }]);
    store.saveGroup(step.id, { id: "g2", taskId: "t", round: 0 }, [{ id: "r1", patch: "p" }]);
    store.markGroup("g1", true);
    store.markGroup("g2", false, "all-fail");
    expect(store.getStepGroups(step.id).map((g) => [g.kept, g.dropReason])).toEqual([
      [true, null],
      [false, "all-fail"],
    ]);
    expect(() => store.markGroup("g3", true)).toThrow(/no group "g3"/);
    expect(() => store.markGroup("g1", true, "why")).toThrow(InvariantError);
  });

  it("write a group whole or not at all", () => {
    const { store, step } = started();
    const duplicateCandidate = [
      { id: "r1", patch: "a" },
      { id: "r1", patch: "b" },
    ];
    expect(() => store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, duplicateCandidate)).toThrow();
    expect(store.getStepGroups(step.id)).toEqual([]);
    // The failed attempt left no group behind, so the id is still free.
    store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [{ id: "r1", patch: "a" }]);
    expect(store.getStepGroups(step.id)).toHaveLength(1);
  });

  it("refuse reused group ids, finished or unknown steps, and bad rounds", () => {
    const { store, run, step } = started();
    store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, []);
    expect(() => store.saveGroup(step.id, { id: "g1", taskId: "t", round: 0 }, [])).toThrow(/already exists/);
    expect(() => store.saveGroup(step.id, { id: "g2", taskId: "t", round: -1 }, [])).toThrow(/round/);
    expect(() => store.saveGroup(12345, { id: "g2", taskId: "t", round: 0 }, [])).toThrow(/no step/);
    store.finishStep(step.id, {});
    expect(() => store.saveGroup(step.id, { id: "g2", taskId: "t", round: 0 }, [])).toThrow(/step is done/);
    expect(store.getStep(run, 0)?.status).toBe("done");
  });
});
