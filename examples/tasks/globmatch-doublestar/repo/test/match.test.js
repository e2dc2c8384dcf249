import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { filter, isMatch, matcher } from "../src/index.js";

describe("isMatch", () => {
  it("matches simple patterns", () => {
    assert.ok(isMatch("README.md", "*.md"));
    assert.ok(!isMatch("docs/README.md", "*.md"));
  });

  it("globstar matches nested directories", () => {
    assert.ok(isMatch("src/lib/util.js", "src/**/*.js"));
    assert.ok(isMatch("src/a/b/c/d.js", "src/**/*.js"));
    assert.ok(!isMatch("test/a/b.js", "src/**/*.js"));
  });

  it("normalizes backslashes and a leading ./", () => {
    assert.ok(isMatch("src\\lib\\util.js", "src/*/*.js"));
    assert.ok(isMatch("./README.md", "*.md"));
  });

  it("later negations win", () => {
    assert.ok(!isMatch("src/app.test.js", ["src/*.js", "!src/*.test.js"]));
    assert.ok(isMatch("src/app.js", ["src/*.js", "!src/*.test.js"]));
    assert.ok(isMatch("src/keep.test.js", ["src/*.js", "!src/*.test.js", "src/keep.test.js"]));
  });
});

describe("filter", () => {
  it("keeps matching paths in order", () => {
    const files = ["b.js", "a.md", "docs/c.md", "docs/deep/d.md", "e.txt"];
    assert.deepEqual(filter(files, "docs/*/*.md"), ["docs/deep/d.md"]);
    assert.deepEqual(filter(files, ["*.md", "*.txt"]), ["a.md", "e.txt"]);
  });

  it("matcher can be reused", () => {
    const isSource = matcher(["lib/*.{js,ts}", "!lib/*.d.ts"]);
    assert.deepEqual(["lib/a.ts", "lib/a.d.ts", "lib/b.js"].map(isSource), [true, false, true]);
  });
});
