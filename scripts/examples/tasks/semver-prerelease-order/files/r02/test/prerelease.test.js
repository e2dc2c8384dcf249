import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compare, max, sort } from "../src/index.js";

describe("pre-release precedence (SemVer §11.4)", () => {
  it("compares numeric identifiers as numbers", () => {
    assert.equal(compare("1.0.0-alpha.10", "1.0.0-alpha.2"), 1);
    assert.equal(compare("1.0.0-2", "1.0.0-10"), -1);
  });

  it("is exact for numeric identifiers beyond Number.MAX_SAFE_INTEGER", () => {
    assert.equal(compare("1.0.0-build.9007199254740993", "1.0.0-build.9007199254740992"), 1);
  });

  it("ranks numeric identifiers below alphanumeric ones", () => {
    assert.equal(compare("1.0.0-rc.9", "1.0.0-rc.10x"), -1);
  });

  it("sorts and picks the maximum accordingly", () => {
    assert.deepEqual(sort(["2.0.0-beta.10", "2.0.0-beta.9", "2.0.0-beta.11"]), [
      "2.0.0-beta.9",
      "2.0.0-beta.10",
      "2.0.0-beta.11",
    ]);
    assert.equal(max(["2.0.0-beta.9", "2.0.0-beta.10"]), "2.0.0-beta.10");
  });
});
