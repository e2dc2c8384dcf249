import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { plural, pluralize } from "../src/index.js";

describe("plural", () => {
  test("adds s to regular nouns", () => {
    assert.equal(plural("cat"), "cats");
    assert.equal(plural("table"), "tables");
  });

  test("turns a consonant and y into ies", () => {
    assert.equal(plural("city"), "cities");
    assert.equal(plural("party"), "parties");
  });

  test("adds es after s", () => {
    assert.equal(plural("glass"), "glasses");
  });

  test("knows irregular and uncountable nouns", () => {
    assert.equal(plural("child"), "children");
    assert.equal(plural("Person"), "People");
    assert.equal(plural("sheep"), "sheep");
  });

  test("rejects non-strings", () => {
    assert.throws(() => plural(3), TypeError);
  });
});

describe("pluralize", () => {
  test("keeps the singular for one", () => {
    assert.equal(pluralize("file", 1), "file");
    assert.equal(pluralize("file", 0), "files");
  });

  test("can include the count", () => {
    assert.equal(pluralize("file", 3, { inclusive: true }), "3 files");
  });
});

describe("suffixes", () => {
  test("keeps y after a vowel", () => {
    assert.equal(plural("key"), "keys");
    assert.equal(plural("monkey"), "monkeys");
    assert.equal(plural("Tuesday"), "Tuesdays");
    assert.equal(plural("guy"), "guys");
  });

  test("adds es after x, z, ch and sh", () => {
    assert.equal(plural("box"), "boxes");
    assert.equal(plural("buzz"), "buzzes");
    assert.equal(plural("church"), "churches");
    assert.equal(plural("brush"), "brushes");
  });

  test("keeps the case of the word", () => {
    assert.equal(plural("Church"), "Churches");
    assert.equal(plural("BOX"), "BOXES");
  });

  test("counts with the new suffixes", () => {
    assert.equal(pluralize("fox", 3, { inclusive: true }), "3 foxes");
    assert.equal(pluralize("day", 2), "days");
  });
});
