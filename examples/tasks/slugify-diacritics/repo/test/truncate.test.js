import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { truncate } from "../src/index.js";

describe("truncate", () => {
  it("returns short text unchanged", () => {
    assert.equal(truncate("short", 10), "short");
  });

  it("cuts at the last space that fits", () => {
    assert.equal(truncate("The quick brown fox", 12), "The quick…");
  });

  it("can cut inside a word", () => {
    assert.equal(truncate("The quick brown fox", 12, { wordBoundary: false }), "The quick b…");
  });

  it("counts code points, not UTF-16 units", () => {
    assert.equal(truncate("😀😀😀😀", 3), "😀😀…");
  });

  it("rejects a max shorter than the ellipsis", () => {
    assert.throws(() => truncate("abc", 2, { ellipsis: "..." }), RangeError);
  });
});
