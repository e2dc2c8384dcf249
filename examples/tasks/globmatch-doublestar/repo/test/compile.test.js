import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { globToRegExp } from "../src/index.js";

const m = (pattern, path, options) => globToRegExp(pattern, options).test(path);

describe("globToRegExp", () => {
  it("star matches within one segment", () => {
    assert.ok(m("*.js", "index.js"));
    assert.ok(!m("*.js", "lib/index.js"));
  });

  it("question mark matches one character", () => {
    assert.ok(m("file?.txt", "file1.txt"));
    assert.ok(!m("file?.txt", "file10.txt"));
  });

  it("character classes, ranges and negation", () => {
    assert.ok(m("v[0-9].md", "v3.md"));
    assert.ok(!m("v[!0-9].md", "v3.md"));
    assert.ok(m("[^a]*", "bcd"));
  });

  it("brace alternatives", () => {
    assert.ok(m("*.{js,mjs}", "a.mjs"));
    assert.ok(!m("*.{js,mjs}", "a.cjs"));
  });

  it("escapes special characters", () => {
    assert.ok(m("a\\*b", "a*b"));
    assert.ok(!m("a\\*b", "axb"));
    assert.ok(m("(draft)+.txt", "(draft)+.txt"));
  });

  it("skips dot files unless dot is set", () => {
    assert.ok(!m("*", ".env"));
    assert.ok(m("*", ".env", { dot: true }));
    assert.ok(m(".*", ".env"));
  });

  it("nocase", () => {
    assert.ok(m("*.JPG", "photo.jpg", { nocase: true }));
  });

  it("rejects an unclosed brace", () => {
    assert.throws(() => globToRegExp("{a,b"), SyntaxError);
  });
});
