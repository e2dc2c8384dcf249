import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { plural } from "../src/index.js";

describe("vowel y and sibilants", () => {
  test("day and boy keep their y", () => {
    assert.equal(plural("day"), "days");
    assert.equal(plural("boy"), "boys");
  });

  test("box, quartz, watch and dish take es", () => {
    assert.equal(plural("box"), "boxes");
    assert.equal(plural("quartz"), "quartzes");
    assert.equal(plural("watch"), "watches");
    assert.equal(plural("dish"), "dishes");
  });
});
