import { beforeAll, describe, expect, it } from "vitest";
import { originalLiterals } from "./original-literals.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const has = (text: string, path: string, values: string[]) => {
  const literals = originalLiterals([text], path, syntax);
  return values.map((v) => literals.has(v));
};

describe("originalLiterals", () => {
  it("knows the literals of the original code's conditions, not of its data", () => {
    const py =
      'UNITS = ("hour", "minute")\nif mode == "strict":\n    pass\nif unit in ("day", "week"):\n    pass\n';
    expect(has(py, "a.py", ["strict", "day", "week", "hour", "minute"])).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    const js = "if (charset === 'iso-8859-1') { x(); }\nswitch (k) { case 404: break; }\nvar limit = 500;\n";
    expect(has(js, "a.js", ["iso-8859-1", "404", "500"])).toEqual([true, true, false]);
  });

  it("reads the text regular expressions match verbatim, wherever they are", () => {
    const js = [
      "var a = (/^--no-.+/).test(arg);",
      "var b = s.replace(/\\+/g, ' ');",
      "var c = /ab+c/.test(s) || /[xyz]q\\.r/.test(s) || /\\d{3}-ok/.test(s);",
      "var d = new RegExp('^--' + CONTROL);",
      "var e = total / count / 2; // not /a regex/",
    ].join("\n");
    expect(has(js, "a.js", ["--no-", "+", "ab", "abc", "q.r", "-ok", "--", "count", "a regex"])).toEqual([
      true,
      true,
      true,
      false, // `b+` may repeat, so "abc" is not verbatim
      true,
      true,
      true,
      false, // a division
      false, // a comment
    ]);
    const py = 'm = re.match(r"^--no-(\\w+)$", arg)\nn = re.compile("x\\\\.y")\ns = "plain-string"\n';
    expect(has(py, "a.py", ["--no-", "x.y", "plain-string"])).toEqual([true, true, false]);
  });
});
