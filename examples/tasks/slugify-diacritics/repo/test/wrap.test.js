import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { wrap } from "../src/index.js";

describe("wrap", () => {
  it("wraps greedily", () => {
    assert.equal(wrap("The quick brown fox jumps", 10), "The quick\nbrown fox\njumps");
  });

  it("keeps long words whole and preserves paragraphs", () => {
    assert.equal(wrap("a extraordinarily b\nc d", 5), "a\nextraordinarily\nb\nc d");
  });
});
