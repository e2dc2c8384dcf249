import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { filter, isMatch } from "../src/index.js";

describe("globstar segments", () => {
  it("match zero or more directories", () => {
    assert.ok(isMatch("src/index.js", "src/**/*.js"));
    assert.ok(isMatch("src/a/b/index.js", "src/**/*.js"));
    assert.deepEqual(filter(["a.md", "b.js", "docs/c.md"], "**/*.md"), ["a.md", "docs/c.md"]);
  });

  it("never match part of a directory name", () => {
    assert.ok(!isMatch("lib/sub-index.js", "lib/**/index.js"));
  });

  it("a trailing ** matches everything below", () => {
    assert.ok(isMatch("x/y/z.txt", "x/**"));
  });

  it("stars inside a segment stay within that segment", () => {
    assert.ok(isMatch("axxb", "a**b"));
    assert.ok(!isMatch("a/x/b", "a**b"));
  });
});
