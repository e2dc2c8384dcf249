import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { unescapeLiteral } from "./original-literals.ts";
import { buildTestCorpus, isEvidenceLiteral, isSignificantLiteral } from "./test-corpus.ts";

describe("isSignificantLiteral", () => {
  it("ignores short strings and the small numbers every program uses", () => {
    expect(["", "a", "ab", "  x ", "0", "1", "2", "-1"].map(isSignificantLiteral)).toEqual(
      Array(8).fill(false),
    );
    expect(["abc", "hello-world", "3", "1024", "-7", "2.5"].map(isSignificantLiteral)).toEqual(
      Array(6).fill(true),
    );
  });
});

describe("buildTestCorpus", () => {
  const testEdit = viewCandidate(
    "p",
    patch({
      path: "tests/test_size.py",
      hunks: [{ at: 4, lines: [" def test_huge():", '+    assert format_size(2 ** 50) == "1048576.0 GB"'] }],
    }),
  );
  const sourceEdit = viewCandidate(
    "q",
    patch({ path: "src/size.py", hunks: [{ at: 1, lines: ['+UNIT = "terabyte"'] }] }),
  );

  it("draws on the statement, workspace tests and the group's test-file lines, not on source edits", () => {
    const corpus = buildTestCorpus(
      "formatSize(1125899906842624) is wrong",
      () => "assert slug('x') == 'kebab-case'",
      [testEdit, sourceEdit],
    );
    expect(corpus.mentions("1125899906842624")).toBe(true);
    expect(corpus.mentions("kebab-case")).toBe(true);
    expect(corpus.mentions("1048576.0 GB")).toBe(true);
    expect(corpus.mentions("terabyte")).toBe(false);
  });

  it("matches whole tokens only, and never trivial literals", () => {
    const corpus = buildTestCorpus("the value abcdef and 10245 and 2", () => "", []);
    expect(corpus.mentions("abc")).toBe(false);
    expect(corpus.mentions("1024")).toBe(false);
    expect(corpus.mentions("abcdef")).toBe(true);
    expect(corpus.mentions("2")).toBe(false);
  });
});

describe("isEvidenceLiteral and unescapeLiteral", () => {
  it("also counts two-character codes and single non-ASCII characters, judged on the unescaped value", () => {
    expect(["EU", "é", "ab"].map(isEvidenceLiteral)).toEqual([true, true, true]);
    expect(["a", "1", "\\\\", " "].map(isEvidenceLiteral)).toEqual([false, false, false, false]);
    expect(unescapeLiteral('a,\\"b\\"\\u00e9')).toBe('a,"b"é');
  });
});

describe("buildTestCorpus: the original code", () => {
  it("knows literals the base code wrote (quoted, or as a name or number), not the patch's additions or prose", () => {
    const change = viewCandidate(
      "c",
      patch({
        path: "src/rates.py",
        hunks: [{ at: 3, lines: [' RATES = {"eu": 1}', "-def rate(region, mode):", '+X = "new-literal"'] }],
      }),
    );
    const corpus = buildTestCorpus(
      "",
      () => "",
      [change],
      () => "# see José's notes\nLIMIT = 250\n",
    );
    expect(["eu", "region", "mode", "250"].map((v) => corpus.inOriginalCode(v))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["new-literal", "é", "José's"].map((v) => corpus.inOriginalCode(v))).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("buildTestCorpus laziness", () => {
  it("reads the workspace tests only when a literal that can be evidence is first looked up, and once", () => {
    let reads = 0;
    const corpus = buildTestCorpus("", () => {
      reads++;
      return "assert f() == 'from-the-repo'";
    }, []);
    expect(corpus.mentions("a")).toBe(false);
    expect(reads).toBe(0);
    expect(corpus.mentions("from-the-repo")).toBe(true);
    expect(corpus.mentions("elsewhere")).toBe(false);
    expect(reads).toBe(1);
  });
});
