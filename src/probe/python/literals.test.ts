import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePythonString, parsePythonFloat, parsePythonInteger, pythonStringLiteral } from "./literals.ts";

describe("Python literals", () => {
  it("decodes what they encode", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), (s) => {
        expect(decodePythonString(pythonStringLiteral(s, false))).toEqual({ value: s, bytes: false });
      }),
    );
  });

  it("reads prefixes, escapes and raw strings as Python does", () => {
    expect(decodePythonString(String.raw`"a\tb\x41\u00e9\101\\"`)?.value).toBe("a\tbAé" + "A\\");
    expect(decodePythonString(String.raw`r"\d+"`)?.value).toBe(String.raw`\d+`);
    expect(decodePythonString(`b'\\xff'`)).toEqual({ value: "\xff", bytes: true });
    expect(decodePythonString(`'''two\nlines'''`)?.value).toBe("two\nlines");
    expect(decodePythonString(`f"{x}"`)).toBeNull();
    expect(decodePythonString(String.raw`"\N{BULLET}"`)).toBeNull();
    expect(parsePythonInteger("0x1F")).toBe(31n);
    expect(parsePythonInteger("1_000")).toBe(1000n);
    expect(parsePythonInteger("2j")).toBeNull();
    expect(parsePythonFloat("1.5e3")).toEqual({ value: 1500, decimals: 1, exponent: 3 });
  });

  it("writes literals the Python interpreter reads back to the same value", () => {
    const samples = [
      "plain",
      'quo"te',
      "back\\slash",
      "tab\tnew\nline",
      "Ångström 日本 😀",
      "\u0000\u007f\u2028",
    ];
    const program = `import sys, json\nvals = [${samples.map((s) => pythonStringLiteral(s, false)).join(", ")}]\nprint(json.dumps(vals))`;
    const out = execFileSync("/usr/bin/python3", ["-c", program], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual(samples);
    const bytes = execFileSync(
      "/usr/bin/python3",
      ["-c", `print(list(${pythonStringLiteral("a\xff\n", true)}))`],
      {
        encoding: "utf8",
      },
    );
    expect(bytes.trim()).toBe("[97, 255, 10]");
  });
});
