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

describe("globstar", () => {
  it("matches zero directories in the middle of a pattern", () => {
    assert.ok(isMatch("packages/core.ts", "packages/**/*.ts"));
    assert.ok(isMatch("docs/index.html", "docs/**/index.html"));
    assert.ok(isMatch("a/b.txt", "a/**/**/b.txt"));
  });

  it("matches files at the root with a leading globstar", () => {
    assert.ok(isMatch("notes.txt", "**/*.txt"));
    assert.ok(isMatch("Makefile", "**/Makefile"));
    assert.ok(isMatch("x/y/Makefile", "**/Makefile"));
  });

  it("matches whole directory names only", () => {
    assert.ok(isMatch("lib/index.js", "lib/**/index.js"));
    assert.ok(!isMatch("lib/sub-index.js", "lib/**/index.js"));
    assert.ok(!isMatch("libx/index.js", "lib/**/index.js"));
    assert.ok(!isMatch("lib/a/bindex.js", "lib/**/index.js"));
  });

  it("keeps root-level files when filtering", () => {
    assert.deepEqual(filter(["index.js", "lib/x.js", "README.md", "lib/y.ts"], "**/*.js"), ["index.js", "lib/x.js"]);
  });

  it("combines with negated globstar patterns", () => {
    const files = ["src/a.js", "src/gen/b.js", "src/c.test.js", "src/gen/d.test.js"];
    assert.deepEqual(filter(files, ["src/**/*.js", "!src/**/*.test.js"]), ["src/a.js", "src/gen/b.js"]);
  });

  it("still matches several directories", () => {
    assert.ok(isMatch("a/b/c/d.txt", "a/**/d.txt"));
    assert.ok(isMatch("x/y/z", "x/**"));
    assert.ok(!isMatch("y/x/z", "x/**"));
  });
});
