import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { estimatorContract } from "./contract.test-suite.ts";
import { estimatorNames, getEstimator, grpo, registerEstimator } from "./estimators.ts";

for (const name of estimatorNames()) estimatorContract(name, getEstimator(name));

describe("the estimator registry", () => {
  it("refuses a name already taken, and keeps the estimator registered under it", () => {
    for (const name of estimatorNames()) {
      const before = getEstimator(name);
      expect(() => registerEstimator(name, "another", grpo)).toThrow(ConfigError);
      expect(() => registerEstimator(name, "another", grpo)).toThrow(
        `an estimator named "${name}" is already registered`,
      );
      expect(getEstimator(name)).toBe(before);
    }
  });
});
