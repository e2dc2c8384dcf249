import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compare, eq, gt, lt, max, rsort, sort } from "../src/index.js";

describe("compare", () => {
  it("orders by major, minor, patch numerically", () => {
    assert.equal(compare("1.2.3", "1.10.0"), -1);
    assert.equal(compare("2.0.0", "1.99.99"), 1);
    assert.equal(compare("1.2.3", "v1.2.3"), 0);
  });

  it("ranks a pre-release below its release", () => {
    assert.equal(compare("1.0.0-alpha", "1.0.0"), -1);
    assert.equal(compare("1.0.0", "1.0.0-rc.1"), 1);
  });

  it("compares alphanumeric identifiers in ASCII order", () => {
    assert.equal(compare("1.0.0-alpha", "1.0.0-beta"), -1);
    assert.equal(compare("1.0.0-beta", "1.0.0-Beta"), 1);
  });

  it("ranks a longer set of identifiers higher when the prefix is equal", () => {
    assert.equal(compare("1.0.0-alpha", "1.0.0-alpha.1"), -1);
  });

  it("ignores build metadata", () => {
    assert.equal(compare("1.0.0+build.1", "1.0.0+build.2"), 0);
    assert.ok(eq("1.0.0-rc.1+a", "1.0.0-rc.1+b"));
  });
});

describe("helpers", () => {
  it("gt and lt", () => {
    assert.ok(gt("1.0.1", "1.0.0"));
    assert.ok(lt("0.9.0", "1.0.0-alpha"));
  });

  it("sort and rsort", () => {
    assert.deepEqual(sort(["1.0.0", "0.9.9", "1.0.0-rc.1"]), ["0.9.9", "1.0.0-rc.1", "1.0.0"]);
    assert.deepEqual(rsort(["1.0.0", "0.9.9", "1.0.0-rc.1"]), ["1.0.0", "1.0.0-rc.1", "0.9.9"]);
  });

  it("max", () => {
    assert.equal(max(["1.2.0", "1.10.0", "1.9.9"]), "1.10.0");
    assert.equal(max([]), null);
  });
});
