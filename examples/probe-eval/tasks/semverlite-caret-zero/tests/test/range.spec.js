"use strict";

const assert = require("assert");
const { satisfies, maxSatisfying, parse } = require("../lib");

describe("satisfies", function () {
  it("handles caret ranges from 1.0.0 on", function () {
    assert.strictEqual(satisfies("1.9.0", "^1.2.3"), true);
    assert.strictEqual(satisfies("1.2.2", "^1.2.3"), false);
    assert.strictEqual(satisfies("2.0.0", "^1.2.3"), false);
  });

  it("handles tilde ranges", function () {
    assert.strictEqual(satisfies("0.3.9", "~0.3.0"), true);
    assert.strictEqual(satisfies("0.4.0", "~0.3.0"), false);
  });

  it("requires every comparator of a set", function () {
    assert.strictEqual(satisfies("1.5.0", ">=1.0.0 <2.0.0"), true);
    assert.strictEqual(satisfies("2.0.0", ">=1.0.0 <2.0.0"), false);
  });

  it("accepts any set of a union", function () {
    assert.strictEqual(satisfies("3.1.0", "^1.0.0 || ^3.0.0"), true);
    assert.strictEqual(satisfies("2.1.0", "^1.0.0 || ^3.0.0"), false);
  });

  it("throws on invalid versions", function () {
    assert.throws(() => satisfies("1.2", "^1.0.0"), TypeError);
    assert.throws(() => parse("one.two.three"), TypeError);
  });
});

describe("maxSatisfying", function () {
  it("picks the highest version in range", function () {
    assert.strictEqual(maxSatisfying(["1.0.0", "1.4.2", "2.0.0"], "^1.0.0"), "1.4.2");
    assert.strictEqual(maxSatisfying(["3.0.0"], "^1.0.0"), null);
  });
});

describe("caret below 1.0.0", function () {
  it("locks the minor version when the major is 0", function () {
    assert.strictEqual(satisfies("0.2.5", "^0.2.3"), true);
    assert.strictEqual(satisfies("0.3.0", "^0.2.3"), false);
  });

  it("locks the patch version when major and minor are 0", function () {
    assert.strictEqual(satisfies("0.0.3", "^0.0.3"), true);
    assert.strictEqual(satisfies("0.0.4", "^0.0.3"), false);
  });

  it("works inside a union", function () {
    assert.strictEqual(satisfies("0.5.1", "^0.4.0 || ^0.5.0"), true);
    assert.strictEqual(satisfies("0.6.0", "^0.4.0 || ^0.5.0"), false);
  });

  it("limits maxSatisfying", function () {
    assert.strictEqual(maxSatisfying(["0.1.9", "0.2.0", "0.2.7", "0.3.1"], "^0.2.0"), "0.2.7");
  });
});
