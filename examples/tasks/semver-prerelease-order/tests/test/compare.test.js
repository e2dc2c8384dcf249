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

describe("pre-release identifiers", () => {
  it("compares numeric identifiers numerically", () => {
    assert.equal(compare("1.0.0-rc.12", "1.0.0-rc.7"), 1);
    assert.equal(compare("2.0.0-beta.3", "2.0.0-beta.20"), -1);
    assert.equal(compare("1.0.0-100", "1.0.0-99"), 1);
    assert.equal(compare("0.5.0-pre.1.15", "0.5.0-pre.1.4"), 1);
  });

  it("ranks numeric identifiers below alphanumeric ones", () => {
    assert.equal(compare("1.0.0-dev.9", "1.0.0-dev.10a"), -1);
    assert.equal(compare("1.0.0-dev.10a", "1.0.0-dev.9"), 1);
    assert.equal(compare("1.0.0-alpha.1", "1.0.0-alpha.beta"), -1);
  });

  it("sorts release candidates in precedence order", () => {
    assert.deepEqual(
      sort(["1.0.0-rc.13", "1.0.0", "1.0.0-rc.3", "1.0.0-rc.1", "1.0.0-beta.14", "1.0.0-beta.6"]),
      ["1.0.0-beta.6", "1.0.0-beta.14", "1.0.0-rc.1", "1.0.0-rc.3", "1.0.0-rc.13", "1.0.0"],
    );
  });

  it("max picks the highest pre-release", () => {
    assert.equal(max(["3.0.0-alpha.9", "3.0.0-alpha.12", "3.0.0-alpha.3"]), "3.0.0-alpha.12");
  });

  it("still treats equal numeric identifiers as equal", () => {
    assert.equal(compare("1.0.0-rc.10", "1.0.0-rc.10"), 0);
    assert.equal(compare("1.0.0-rc.10.1", "1.0.0-rc.10"), 1);
  });
});
