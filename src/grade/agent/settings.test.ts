import { describe, expect, it } from "vitest";
import { agentOptions } from "./settings.ts";

describe("agentOptions", () => {
  const env = {
    GAGAR_GRADER_BASE_URL: "http://env/v1",
    GAGAR_GRADER_MODEL: "env-model",
    GAGAR_GRADER_API_KEY: "env-key",
    MY_KEY: "my-key",
  };

  it("takes flags first, then the environment, then the config file", () => {
    expect(
      agentOptions({ model: "flag-model", passes: 5 }, env, { baseUrl: "http://config/v1", maxTurns: 7 }),
    ).toEqual({
      baseUrl: "http://env/v1",
      model: "flag-model",
      apiKey: "env-key",
      passes: 5,
      maxTurns: 7,
    });
    expect(agentOptions({}, {}, { baseUrl: "http://config/v1" })).toEqual({ baseUrl: "http://config/v1" });
  });

  it("reads the key from the variable --api-key-env names, and refuses an unset one", () => {
    expect(agentOptions({ apiKeyEnv: "MY_KEY" }, env).apiKey).toBe("my-key");
    expect(() => agentOptions({ apiKeyEnv: "MISSING" }, env)).toThrow(
      /MISSING: that environment variable is not set/,
    );
  });

  it("maps --timeout to seconds per pass and keeps the transcript directory", () => {
    expect(agentOptions({ timeout: 2, transcripts: "out/t" }, {})).toEqual({
      timeoutSec: 2,
      transcripts: "out/t",
    });
  });
});
