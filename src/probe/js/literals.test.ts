import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeJsString, jsSyntax, parseJsNumber } from "./literals.ts";

describe("JavaScript literals", () => {
  it("decodes what they encode, and what the engine reads", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), (s) => {
        const text = jsSyntax.string(s, false);
        expect(decodeJsString(text)).toBe(s);
        expect(new Function(`return ${text}`)()).toBe(s);
      }),
    );
  });

  it("reads quotes, templates and escapes as the engine does", () => {
    for (const text of [
      String.raw`'a\'b'`,
      "`x\\u{1F600}y`",
      String.raw`"\x41\u00e9\0"`,
      "'line\\\ncontinued'",
    ])
      expect(decodeJsString(text)).toBe(new Function(`return ${text}`)());
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    expect(decodeJsString("`a${b}`")).toBeNull();
    expect(decodeJsString(String.raw`"\1"`)).toBeNull();
  });

  it("reads numbers in every notation", () => {
    expect(parseJsNumber("0x1f")).toEqual({ integer: 31n, bigint: false });
    expect(parseJsNumber("10n")).toEqual({ integer: 10n, bigint: true });
    expect(parseJsNumber("1_000")).toEqual({ integer: 1000n, bigint: false });
    expect(parseJsNumber("2.50")).toEqual({ integer: null, value: 2.5, decimals: 2, exponent: null });
    expect(parseJsNumber("010")).toBeNull();
  });
});
