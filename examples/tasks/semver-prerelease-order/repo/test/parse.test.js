import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SemVerError, parse, valid } from "../src/index.js";

describe("parse", () => {
  it("splits a full version into its parts", () => {
    assert.deepEqual(parse("1.2.3-beta.4+exp.sha.5114f85"), {
      major: 1,
      minor: 2,
      patch: 3,
      prerelease: ["beta", "4"],
      build: ["exp", "sha", "5114f85"],
    });
  });

  it("accepts a leading v and surrounding whitespace", () => {
    assert.equal(parse(" v10.0.1 ").major, 10);
  });

  it("rejects leading zeros and missing parts", () => {
    for (const bad of ["01.2.3", "1.2", "1.2.3-01", "1.2.3-", "1.2.3+"]) {
      assert.throws(() => parse(bad), SemVerError, bad);
    }
  });
});

describe("valid", () => {
  it("normalizes valid versions and returns null otherwise", () => {
    assert.equal(valid("v1.0.0-rc.1"), "1.0.0-rc.1");
    assert.equal(valid("1.0"), null);
    assert.equal(valid(42), null);
  });
});
