import { describe, expect, it } from "vitest";
import { ConfigError } from "../../errors.ts";
import { agentGraderFactory } from "./factory.ts";

describe("agentGraderFactory", () => {
  const base = { baseUrl: "http://127.0.0.1:9/v1", model: "grader-7b" };

  it("builds the agent and ensemble graders, named for the mode and versioned by protocol and model", () => {
    expect(agentGraderFactory("agent")(base)).toMatchObject({
      name: "agent",
      version: "protocol-2/grader-7b",
    });
    expect(agentGraderFactory("ensemble")({ ...base, passes: 5 }).name).toBe("ensemble");
  });

  it("says which flag or variable is missing", () => {
    expect(() => agentGraderFactory("agent")({ model: "m" })).toThrow(
      /--base-url URL .* or set GAGAR_GRADER_BASE_URL/,
    );
    expect(() => agentGraderFactory("agent")({ baseUrl: base.baseUrl })).toThrow(
      /--model NAME or set GAGAR_GRADER_MODEL/,
    );
  });

  it("rejects unknown and out-of-range options as ConfigError", () => {
    expect(() => agentGraderFactory("agent")({ ...base, pases: 3 })).toThrow(ConfigError);
    expect(() => agentGraderFactory("agent")({ ...base, passes: 0 })).toThrow(
      /agent grader options at passes/,
    );
  });
});
