import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { slugify } from "../src/index.js";

describe("slugify with non-ASCII input", () => {
  it("removes diacritics", () => {
    assert.equal(slugify("Crème Brûlée: A How-To"), "creme-brulee-a-how-to");
    assert.equal(slugify("Déjà vu?"), "deja-vu");
  });

  it("transliterates letters without a Unicode decomposition", () => {
    assert.equal(slugify("Straße in Øresund"), "strasse-in-oresund");
    assert.equal(slugify("Łódź Encyclopædia", { lowercase: false }), "Lodz-Encyclopaedia");
  });

  it("never leaves separators at the edges", () => {
    assert.equal(slugify("Hello, World!"), "hello-world");
    assert.equal(slugify("¿Qué?", { separator: "_" }), "que");
  });
});
