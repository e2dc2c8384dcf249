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

describe("accented input", () => {
  it("transliterates accented Latin letters to ASCII", () => {
    assert.equal(slugify("Ångström units"), "angstrom-units");
    assert.equal(slugify("São Paulo, Brasil"), "sao-paulo-brasil");
    assert.equal(slugify("Dvořák Symphony No. 9"), "dvorak-symphony-no-9");
  });

  it("keeps the case of accented letters when lowercase is false", () => {
    assert.equal(slugify("Über Café", { lowercase: false }), "Uber-Cafe");
  });

  it("applies maxLength to the transliterated slug", () => {
    assert.equal(slugify("Éléphant rosé à Zürich", { maxLength: 14 }), "elephant-rose");
  });
});

describe("separators at the edges", () => {
  it("never ends with a separator", () => {
    assert.equal(slugify("Hello, World!"), "hello-world");
    assert.equal(slugify("What is new?", { separator: "_" }), "what_is_new");
    assert.equal(slugify("Ready...!!"), "ready");
  });

  it("returns an empty slug for punctuation only", () => {
    assert.equal(slugify("!!!"), "");
    assert.equal(slugify(" -- "), "");
  });
});
