import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { slugify } from "../src/index.js";

describe("slugify", () => {
  it("lowercases and joins words with dashes", () => {
    assert.equal(slugify("Hello World"), "hello-world");
  });

  it("collapses runs of punctuation and spaces", () => {
    assert.equal(slugify("  Tips & Tricks -- 2024 edition "), "tips-tricks-2024-edition");
  });

  it("drops leading separators", () => {
    assert.equal(slugify("...and then"), "and-then");
  });

  it("supports a custom separator", () => {
    assert.equal(slugify("Hello big World", { separator: "_" }), "hello_big_world");
    assert.equal(slugify("a b", { separator: "--" }), "a--b");
  });

  it("can keep the case", () => {
    assert.equal(slugify("Hello World", { lowercase: false }), "Hello-World");
  });

  it("cuts at a word boundary when maxLength is given", () => {
    assert.equal(slugify("A very long title indeed", { maxLength: 12 }), "a-very-long");
    assert.equal(slugify("Supercalifragilistic", { maxLength: 5 }), "super");
  });

  it("rejects bad input", () => {
    assert.throws(() => slugify(42), TypeError);
    assert.throws(() => slugify("x", { separator: "a" }), TypeError);
  });
});
