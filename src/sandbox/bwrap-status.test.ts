import { describe, expect, it } from "vitest";
import { outcomeFromBwrapStatus } from "./bwrap-status.ts";

describe("outcomeFromBwrapStatus", () => {
  it("takes the program's exit from the exit-code record", () => {
    const status = '{ "child-pid": 42, "pid-namespace": 1 }\n{ "exit-code": 3 }\n';
    expect(outcomeFromBwrapStatus(status)).toEqual({ exitCode: 3, signal: null });
  });

  it("says the program never ran when only child-pid (or nothing) arrived", () => {
    expect(outcomeFromBwrapStatus('{ "child-pid": 42 }\n')).toBeUndefined();
    expect(outcomeFromBwrapStatus("")).toBeUndefined();
    expect(outcomeFromBwrapStatus('{ "exit-code": 1')).toBeUndefined();
  });
});
