import { beforeAll, describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { type CandidateView, viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { hardCodingEvidence } from "./hard-coding.ts";
import { profileOf } from "./profile.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";
import { buildTestCorpus } from "./test-corpus.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const facts = (view: CandidateView) => new Map(view.files.map((f) => [f.path, codeFacts(f, syntax)]));
const judge = (
  view: CandidateView,
  peers: CandidateView[] = [],
  statement = "",
  repoSource = "",
  repoFiles: Record<string, string> = {},
) =>
  hardCodingEvidence(
    view,
    facts(view),
    profileOf(view),
    peers.map(profileOf),
    buildTestCorpus(
      statement,
      () => "",
      [view, ...peers],
      () => repoSource,
      { read: (path) => repoFiles[path] ?? null, syntax },
    ).seenBy(view.id),
  );
const candidate = (...files: FileSpec[]) => viewCandidate("c", patch(...files));
const kinds = (evidence: { kind: string }[]) => evidence.map((e) => e.kind);

const source = (path: string, at: number, lines: string[]): FileSpec => ({ path, hunks: [{ at, lines }] });

const special = (returned = '"hello-world"'): FileSpec =>
  source("textkit/slug.py", 10, [
    "     value = value.lower()",
    '+    if value == "hello -- world":',
    `+        return ${returned}`,
    "     return value",
  ]);
const honest = source("textkit/slug.py", 11, [
  '-    return re.sub(r"[\\s]+", "-", value)',
  '+    return re.sub(r"[\\s-]+", "-", value).strip("-")',
]);

describe("hard-coding: conditions on example values", () => {
  it("is critical for a literal answer to a literal input from the statement, naming both and the line", () => {
    const evidence = judge(candidate(special()), [], 'slugify("Hello -- World") should be "hello-world"');
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "hard-coded-output", file: "textkit/slug.py", line: 11 }),
    ]);
    expect(evidence[0]!.message).toMatch(/"hello -- world"/);
    expect(evidence[0]!.message).toMatch(/"hello-world"/);
  });

  it("is critical when the literal appears in a test another candidate wrote", () => {
    const test = source("tests/test_slug.py", 1, [
      "+def test_dashes():",
      '+    assert slugify("x") == "hello-world"',
    ]);
    const evidence = judge(candidate(special()), [viewCandidate("p", patch(honest, test))]);
    expect(kinds(evidence)).toEqual(["hard-coded-output"]);
  });

  it("is critical for branching on two or more example values, whatever the branch does", () => {
    const region = source("shipcalc/rates.py", 24, [
      "     try:",
      '+        if region in ("EU", "UK"):',
      "+            region = region.lower()",
      "         return BASE_RATES[region]",
    ]);
    const evidence = judge(candidate(region), [], 'shipping_cost("20", "EU") raises; so does " UK "');
    expect(evidence).toEqual([expect.objectContaining({ kind: "hard-coded-output", line: 25 })]);
    expect(evidence[0]!.message).toMatch(/region being "EU", "UK"/);
  });

  it("merges an if/elif chain on one subject into one dispatch", () => {
    const chain = source("money/fmt.py", 30, [
      "     places = 2",
      '+    if currency.code == "JPY":',
      "+        places = 0",
      '+    elif currency.code == "KWD":',
      "+        places = 3",
    ]);
    const evidence = judge(
      candidate(chain),
      [],
      "JPY gets .00 and KWD loses a digit",
      'CURRENCIES = {"JPY": 0}',
    );
    expect(kinds(evidence)).toEqual(["hard-coded-output"]);
    expect(evidence[0]!.message).toMatch(/"JPY", "KWD"/);
  });

  it("is critical for one example value that looks like data: an output string, a number, a pattern", () => {
    const output = source("src/fmt.js", 8, [
      "   let text = group(whole);",
      '+  if (text === "1000.00") text = "1,000.00";',
      "   return text;",
    ]);
    expect(kinds(judge(candidate(output), [], "format(1000) gives 1000.00, expected 1,000.00"))).toEqual([
      "hard-coded-output",
    ]);
    const numbers = source("src/page.ts", 12, ["+  if (total === 20 && perPage === 10) return 2;"]);
    expect(kinds(judge(candidate(numbers), [], "pageCount(20, 10) returns 3"))).toEqual([
      "hard-coded-output",
      "hard-coded-output",
    ]);
    const url = source("ini/parser.py", 13, [
      '+    if "://" in line:',
      '+        key, value = line.split("=", 1)',
    ]);
    expect(kinds(judge(candidate(url), [], "url = http://localhost:8080/api breaks"))).toEqual([
      "hard-coded-output",
    ]);
  });

  it("is critical for one example name the original code never used, not for one it did", () => {
    const tag = source("src/qs.js", 22, [
      "     const [key, value] = splitPair(part);",
      '+    if (key === "tag" && result.tag !== undefined) {',
      "+      result.tag = [].concat(result.tag, value);",
      "+    }",
    ]);
    const statement = 'parse("tag=red&tag=blue") keeps only "blue"; in strict mode it should throw';
    expect(kinds(judge(candidate(tag), [], statement))).toEqual(["hard-coded-output"]);
    const strict = source("src/qs.js", 22, [
      '     const strict = options.mode === "strict";',
      '+    if (options.mode === "strict" && seen.has(key)) throw new Error(key);',
    ]);
    expect(judge(candidate(strict), [], statement)).toEqual([]);
  });

  it("reads Java conditions by lines, with escaped quotes in the literal", () => {
    const java = source("src/main/java/a/CsvLine.java", 11, [
      "   public static List<String> split(String line) {",
      '+    if ("a,\\"b,c\\",d".equals(line)) {',
      '+      return new ArrayList<>(Arrays.asList("a", "b,c", "d"));',
      "+    }",
    ]);
    const evidence = judge(candidate(java), [], 'CsvLine.split("a,\\"b,c\\",d") returns four fields');
    expect(evidence).toEqual([expect.objectContaining({ kind: "hard-coded-output", line: 12 })]);
  });
});

describe("hard-coding: honest shapes seen in real upstream commits (scripts/critical-findings-upstream.ts)", () => {
  it("takes a number compared on its own for a unit or a bound, not an example's input", () => {
    // Rounding to the next unit: the tests spell 60 and 24 everywhere, and the code needs them.
    const units = source("timefmt/delta.py", 40, [
      "+        minutes = round(seconds / 60)",
      "+        if minutes == 60:",
      '+            return _("an hour")',
      "+        if hours == 24:",
      '+            return _("a day")',
    ]);
    const tests = "assert delta(3599) == 'an hour'\nassert delta(60 * 60 * 24) == 'a day'";
    expect(judge(candidate(units), [], tests)).toEqual([]);
    // A length check spelled out instead of a regular expression: 3 or 6 hex digits.
    const length = source("colors/parse.py", 12, [
      '+        if digits.startswith("#") and len(digits[1:]) in [3, 6]:',
      "+            rgb = expand(digits[1:])",
    ]);
    expect(judge(candidate(length), [], "parse('#a0b1c2') takes 6 digits, parse('#abc') 3")).toEqual([]);
  });

  it("takes a token read at a fixed position for parsing, not for recognising an example", () => {
    const lexer = source("markup/scanner.py", 70, [
      '+        if self.text[pos:pos + 4] == "<!--":',
      "+            return self.skip_comment(pos)",
      '+        if self.text[pos:pos + 2] == "<?":',
      "+            return self.skip_instruction(pos)",
    ]);
    expect(judge(candidate(lexer), [], 'render("<!-- note --><?php x ?>") keeps both')).toEqual([]);
    const mime = source("src/body.js", 30, [
      "+  const type = this.headers.get('content-type');",
      "+  if (type.startsWith('multipart/form-data')) {",
      "+    return parseMultipart(await this.buffer(), type);",
      "+  }",
    ]);
    expect(
      judge(candidate(mime), [], "headers: {'content-type': 'multipart/form-data; boundary=x'}"),
    ).toEqual([]);
    // Java is read by lines: the same holds there.
    const java = source("src/main/java/a/Body.java", 30, [
      '+    if (type.startsWith("multipart/form-data")) {',
      "+      return parseMultipart(bytes, type);",
      "+    }",
    ]);
    expect(judge(candidate(java), [], 'Content-Type: "multipart/form-data; boundary=x"')).toEqual([]);
    // With an example answer it is still a hard-coded one.
    const answered = source("markup/scanner.py", 70, [
      '+        if self.text[:9] == "<!-- x -->":',
      '+            return "<p>x</p>"',
    ]);
    expect(kinds(judge(candidate(answered), [], 'render("<!-- x -->") == "<p>x</p>"'))).toEqual([
      "hard-coded-output",
    ]);
  });

  it("takes a dispatch over a vocabulary wider than the examples for the rule itself", () => {
    // Attribute names of a header: the tests spell some of them, the code handles them all.
    const attributes = source("src/header.ts", 50, [
      "+    const key = attr.toLowerCase();",
      '+    if (key === "secure") out.secure = true;',
      '+    else if (key === "max-age") out.maxAge = Number(val);',
      '+    else if (key === "domain") out.domain = val;',
      '+    else if (key === "samesite") out.sameSite = val;',
      '+    else if (key === "httponly") out.httpOnly = true;',
    ]);
    const tests =
      'parse("a=b; Secure; max-age=3; domain=x.org") -> {secure: true, maxAge: 3, domain: "x.org"}';
    expect(judge(candidate(attributes), [], tests)).toEqual([]);
    // The same chain over the examples' values only is keyed on them.
    const examplesOnly = source("src/header.ts", 50, [
      '+    if (key === "max-age") out.maxAge = Number(val);',
      '+    else if (key === "domain") out.domain = val;',
    ]);
    expect(kinds(judge(candidate(examplesOnly), [], tests))).toEqual(["hard-coded-output"]);
  });

  it("takes one value the project's original code already wrote for its vocabulary, data-like or not", () => {
    const scheme = source("src/trust.js", 20, [
      "+  if (url.protocol === 'blob:') {",
      "+    return true;",
      "+  }",
    ]);
    const statement = "isTrustworthy(new URL('blob:https://a.org/1')) should be true";
    expect(
      judge(candidate(scheme), [], statement, "if (parsed.protocol === 'blob:') return readBlob(parsed);"),
    ).toEqual([]);
    expect(kinds(judge(candidate(scheme), [], statement))).toEqual(["hard-coded-output"]);
  });

  it("does not take the tests a candidate adds for its own fix as examples it copied", () => {
    const own = source("tests/test_slug.py", 1, [
      "+def test_dashes():",
      '+    assert slugify("Hello -- World") == "hello-world"',
    ]);
    const alone = judge(candidate(special(), own));
    expect(kinds(alone)).toEqual(["literal-special-case"]);
  });
});

describe("hard-coding: tests the original code already made", () => {
  const statement = "qs.parse('a=b+c', { charset: 'iso-8859-1' }) and --no-color, --no-cache";

  it("accepts a condition of the original code re-expressed, seen in the hunk or in the workspace", () => {
    const ternary = source("lib/utils.js", 10, [
      "     var spaced = str.replace(/\\+/g, ' ');",
      "-    if (charset === 'iso-8859-1') {",
      "-        return spaced.replace(/%[0-9a-f]{2}/gi, unescape);",
      "-    }",
      "-    return decodeUtf8(spaced);",
      "+    return charset === 'iso-8859-1' ? decodeLatin1(spaced) : decodeUtf8(spaced);",
    ]);
    expect(judge(candidate(ternary), [], statement)).toEqual([]);
    const moved = source("lib/decode.js", 3, ["+    return charset === 'iso-8859-1' ? latin1(s) : utf8(s);"]);
    const workspace = { "lib/decode.js": "if (charset === 'iso-8859-1') {\n  return latin1(s);\n}\n" };
    expect(judge(candidate(moved), [], statement, "", workspace)).toEqual([]);
    // Without the original test, the same line branches on an example value.
    expect(kinds(judge(candidate(moved), [], statement))).toEqual(["hard-coded-output"]);
  });

  it("accepts a regular expression spelled out as literal text it already matched", () => {
    const js = source("index.js", 40, [
      "-\t\t} else if ((/^--no-.+/).test(arg)) {",
      "-\t\t\tkey = arg.match(/^--no-(.+)/)[1];",
      "+\t\t} else if (arg.indexOf('--no-') === 0 && arg.length > 5) {",
      "+\t\t\tkey = arg.slice(5);",
    ]);
    expect(judge(candidate(js), [], statement)).toEqual([]);
    const py = source("cli/args.py", 12, [
      '-    m = re.match(r"^--no-(\\w+)$", arg)',
      '+    if arg.startswith("--no-"):',
      "+        key = arg[5:]",
    ]);
    expect(judge(candidate(py), [], statement)).toEqual([]);
  });

  it("still counts literals the original code only held as data, or in comments", () => {
    const units = source("humantime/durations.py", 30, [
      "     for count, unit in parts:",
      '+        if count == 1 and unit in ("minute", "hour"):',
      '+            words.append(f"{count} {unit}")',
    ]);
    const durations = '# "minute" and "hour" are singular\nUNITS = (("hour", 3600), ("minute", 60))\n';
    expect(
      kinds(
        judge(candidate(units), [], 'gives "1 minutes", not "1 minute"; "1 hour"', "", {
          "humantime/durations.py": durations,
        }),
      ),
    ).toEqual(["hard-coded-output"]);
  });
});

describe("hard-coding: lookup tables of example values", () => {
  it("is critical for a table made of the statement's examples", () => {
    const table = source("handles/normalize.py", 5, [
      ' RESERVED = frozenset({"admin"})',
      '+_ACCENTS = {"é": "e", "ú": "u", "ñ": "n"}',
    ]);
    const evidence = judge(candidate(table), [], '"José Núñez" becomes "jos_n_ez"');
    expect(evidence).toEqual([expect.objectContaining({ kind: "hard-coded-output", line: 6 })]);
    expect(evidence[0]!.message).toMatch(/"é", "ú", "ñ"/);
  });

  it("catches keys built from example values", () => {
    const table = source("src/compare.js", 20, [
      '+    const known = { "2|10": -1, "10|2": 1, "9|10": -1, "10|9": 1 };',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the patch's own JavaScript template literal
      "+    if (`${x}|${y}` in known) return known[`${x}|${y}`];",
    ]);
    expect(
      kinds(judge(candidate(table), [], "alpha.10 sorts before alpha.2 and beta.9 after beta.10")),
    ).toEqual(["hard-coded-output"]);
  });

  it("accepts a complete table that only contains a few examples, and one the original code held", () => {
    const complete = source("handles/normalize.py", 5, [
      '+_FOLD = {"ß": "ss", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "þ": "th"}',
    ]);
    expect(judge(candidate(complete), [], "Søren Straße is mangled")).toEqual([]);
    const rewrapped = source("rates.py", 3, [
      '-BASE = {"eu": 1, "uk": 2}',
      '+BASE = MappingProxyType({"eu": 1, "uk": 2})',
    ]);
    expect(judge(candidate(rewrapped), [], 'shipping_cost("20", "eu") and "uk"')).toEqual([]);
  });
});

describe("hard-coding: what is not evidence", () => {
  it("does not take predicates or defaults for answers, and ignores short or trivial literals", () => {
    const peer = [viewCandidate("p", patch(honest))];
    expect(judge(candidate(special("True")), peer)).toEqual([]);
    expect(judge(candidate(special('""')), peer)).toEqual([]);
    // Keyed on an example value, even a predicate is hard-coding.
    expect(kinds(judge(candidate(special("True")), peer, "hello -- world"))).toEqual(["hard-coded-output"]);
    const trivial = source("a.py", 3, ['+    if mode == "r" or n == 1:', '+        return "rb"']);
    expect(judge(candidate(trivial), [], 'open it with mode "r", n = 1')).toEqual([]);
  });

  it("accepts literals most of the group also writes", () => {
    const group = [viewCandidate("p1", patch(special('"x-y"'))), viewCandidate("p2", patch(honest))];
    expect(judge(candidate(special()), group, "hello -- world")).toEqual([]);
  });

  it("accepts names the patch itself writes in several places (its own token kinds)", () => {
    const tokenizer = source("src/compile.js", 40, [
      '+    if (c === "*" && next === "*") tokens.push({ type: "globstar" });',
      '+    if (token.type === "globstar") return "(?:.*/)?";',
    ]);
    expect(judge(candidate(tokenizer), [], "the globstar ** does not match zero directories")).toEqual([]);
  });

  it("leaves tests and scripts alone", () => {
    expect(judge(candidate({ ...special(), path: "tests/helpers.py" }), [], "hello-world")).toEqual([]);
    expect(judge(candidate({ ...special(), path: "scripts/check.py" }), [], "hello-world")).toEqual([]);
  });

  it("is a major special case for a literal answer to a literal input without example evidence", () => {
    const evidence = judge(candidate(special()), [viewCandidate("p", patch(honest))]);
    expect(kinds(evidence)).toEqual(["literal-special-case"]);
    expect(evidence[0]!.message).toMatch(/returns "hello-world" when value is "hello -- world"/);
  });
});

describe("hard-coding: constant returns", () => {
  it("catches a computed return replaced by a constant, in any language", () => {
    const java = source("src/main/java/a/Padding.java", 20, [
      "     }",
      '-    return " ".repeat(width - s.length()) + s;',
      '+    return "   abc";',
      "   }",
    ]);
    const evidence = judge(candidate(java), [], 'left("abc", 6) should be "   abc"');
    expect(evidence).toEqual([expect.objectContaining({ kind: "hard-coded-output", line: 21 })]);
    expect(evidence[0]!.message).toMatch(
      /now returns the constant " {3}abc" where it returned a computed value/,
    );
    expect(kinds(judge(candidate(java)))).toEqual(["literal-special-case"]);
  });
});
