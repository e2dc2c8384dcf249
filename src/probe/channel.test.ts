import { describe, expect, it } from "vitest";
import { readProbeChannel, slotKey } from "./channel.ts";

describe("probe channel", () => {
  it("reads observations and ends, counts what is not a record, and keeps a slot's first record", () => {
    const lines = [
      '{"gp":1,"p":"t#base","i":"","k":"a0","n":0,"v":{"t":"int","v":3},"h":true,"e":{"t":"int","v":3}}',
      '{"gp":1,"p":"t#base","i":"","end":{"t":"ok"}}',
      '{"gp":1,"p":"t#base","i":"","k":"a0","n":0,"v":{"t":"int","v":4},"h":false}',
      "PASSED tests/test_x.py",
      '{"gp":1,"p":"t#base","i":"","k":"a1","n":0,"h":false}',
      '{"gp":2,"p":"t#base","i":"","k":"a2","n":0,"v":1}',
      '{"gp":1,"p":"t#base","i":"","k":"a3","n":0,"v":{"t":"none"},"h":"yes"}',
    ];
    const run = readProbeChannel(lines.join("\n"));
    expect(run.malformed).toBe(3);
    expect(run.duplicates).toBe(1);
    expect(run.observations.get(slotKey("t#base", "", "a0#0"))).toEqual({
      probe: "t#base",
      instance: "",
      slot: "a0#0",
      value: { t: "int", v: 3 },
      expected: { t: "int", v: 3 },
      held: true,
    });
    expect(run.observations.get(slotKey("t#base", "", "end"))?.value).toEqual({ t: "ok" });
    expect(run.observations.get(slotKey("t#base", "", "a3#0"))?.held).toBeNull();
  });
});
