import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseQuery, stringifyQuery } from "../src/query.js";

describe("parseQuery", () => {
  test("parses pairs", () => {
    assert.deepEqual(parseQuery("page=2&sort=name"), { page: "2", sort: "name" });
  });

  test("ignores a leading question mark and empty pairs", () => {
    assert.deepEqual(parseQuery("?a=1&&b=2&"), { a: "1", b: "2" });
    assert.deepEqual(parseQuery(""), {});
  });

  test("gives keys without a value an empty string", () => {
    assert.deepEqual(parseQuery("debug&x=1"), { debug: "", x: "1" });
  });

  test("decodes percent escapes", () => {
    assert.deepEqual(parseQuery("city=S%C3%A3o%20Paulo&sum=1%2B1"), { city: "São Paulo", sum: "1+1" });
  });

  test("rejects non-strings", () => {
    assert.throws(() => parseQuery(null), TypeError);
  });
});

describe("stringifyQuery", () => {
  test("encodes keys and values", () => {
    assert.equal(stringifyQuery({ q: "a&b", n: 3 }), "q=a%26b&n=3");
  });

  test("writes arrays as repeated keys and skips undefined", () => {
    assert.equal(stringifyQuery({ tag: ["x", "y"], skip: undefined }), "tag=x&tag=y");
  });
});

describe("form encoding", () => {
  test("decodes plus as a space", () => {
    assert.deepEqual(parseQuery("q=hello+world&lang=en"), { q: "hello world", lang: "en" });
    assert.deepEqual(parseQuery("name=Ana+Mar%C3%ADa"), { name: "Ana María" });
  });

  test("collects repeated keys into an array", () => {
    assert.deepEqual(parseQuery("color=red&color=blue&page=2"), { color: ["red", "blue"], page: "2" });
    assert.deepEqual(parseQuery("id=1&id=2&id=3"), { id: ["1", "2", "3"] });
  });

  test("round-trips with stringifyQuery", () => {
    const params = { ids: ["7", "8"], q: "a b" };
    assert.deepEqual(parseQuery(stringifyQuery(params)), params);
  });
});
