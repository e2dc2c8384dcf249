import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { satisfies } from "../src/index.js";

describe("satisfies", () => {
  const cases = [
    ["1.4.2", "^1.2.0", true],
    ["2.0.0", "^1.2.0", false],
    ["0.2.9", "^0.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["1.2.9", "~1.2.3", true],
    ["1.3.0", "~1.2.3", false],
    ["1.9.0", "1.x", true],
    ["1.2.7", "1.2.*", true],
    ["1.3.0", "1.2.x", false],
    ["5.0.0", "*", true],
    ["1.5.0", ">=1.2.0 <2.0.0", true],
    ["2.0.0", ">= 1.2.0 < 2.0.0", false],
    ["3.1.0", "^1.0.0 || ^3.0.0", true],
    ["1.2.3", "1.2.3", true],
  ];
  for (const [version, range, expected] of cases) {
    it(`${version} ${expected ? "satisfies" : "does not satisfy"} ${range}`, () => {
      assert.equal(satisfies(version, range), expected);
    });
  }
});
