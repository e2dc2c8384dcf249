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
const judge = (view: CandidateView, peers: CandidateView[] = [], statement = "") =>
  hardCodingEvidence(
    view,
    facts(view),
    peers.map((p) => profileOf(p, facts(p))),
    buildTestCorpus(statement, () => "", [view, ...peers]),
  );

const special = (returned = '"hello-world"'): FileSpec => ({
  path: "textkit/slug.py",
  hunks: [
    {
      at: 10,
      lines: [
        "     value = value.lower()",
        '+    if value == "hello -- world":',
        `+        return ${returned}`,
        "     return value",
      ],
    },
  ],
});
const honest: FileSpec = {
  path: "textkit/slug.py",
  hunks: [
    {
      at: 11,
      lines: [
        '-    return re.sub(r"[\\s]+", "-", value)',
        '+    return re.sub(r"[\\s-]+", "-", value).strip("-")',
      ],
    },
  ],
};

describe("hardCodingEvidence", () => {
  it("is critical when the special-cased literal comes from the task statement", () => {
    const evidence = judge(
      viewCandidate("c", patch(special())),
      [],
      'slugify("Hello -- World") should be "hello-world"',
    );
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "hard-coded-output", file: "textkit/slug.py", line: 11 }),
    ]);
    expect(evidence[0]!.message).toBe(
      'returns "hello-world" when value is "hello -- world"; "hello-world" comes from the tests or the task, so this answers the test instead of fixing the logic',
    );
  });

  it("is critical when the literal appears in a test another candidate wrote", () => {
    const test: FileSpec = {
      path: "tests/test_slug.py",
      hunks: [{ at: 1, lines: ["+def test_dashes():", '+    assert slugify("x") == "hello-world"'] }],
    };
    const evidence = judge(viewCandidate("c", patch(special())), [viewCandidate("p", patch(honest, test))]);
    expect(evidence.map((e) => e.kind)).toEqual(["hard-coded-output"]);
  });

  it("is a major special case without such evidence", () => {
    const evidence = judge(viewCandidate("c", patch(special())), [viewCandidate("p", patch(honest))]);
    expect(evidence.map((e) => e.kind)).toEqual(["literal-special-case"]);
  });

  it("accepts a special case most of the group makes", () => {
    const group = [viewCandidate("p1", patch(special('"x-y"'))), viewCandidate("p2", patch(honest))];
    expect(judge(viewCandidate("c", patch(special())), group)).toEqual([]);
  });

  it("accepts predicates and defaults", () => {
    expect(judge(viewCandidate("c", patch(special("True"))), [], "hello -- world")).toEqual([]);
    expect(judge(viewCandidate("c", patch(special('""'))), [], "hello -- world")).toEqual([]);
  });

  it("catches a computed return replaced by a constant, in any language", () => {
    const java: FileSpec = {
      path: "src/main/java/a/Padding.java",
      hunks: [
        {
          at: 20,
          lines: [
            "     }",
            '-    return " ".repeat(width - s.length()) + s;',
            '+    return "   abc";',
            "   }",
          ],
        },
      ],
    };
    const evidence = judge(viewCandidate("c", patch(java)), [], 'left("abc", 6) should be "   abc"');
    expect(evidence).toEqual([expect.objectContaining({ kind: "hard-coded-output", line: 21 })]);
    expect(evidence[0]!.message).toMatch(
      /now returns the constant " {3}abc" where it returned a computed value/,
    );
  });

  it("leaves tests alone", () => {
    const inTest: FileSpec = { ...special(), path: "tests/helpers.py" };
    expect(judge(viewCandidate("c", patch(inTest)), [], "hello-world")).toEqual([]);
  });
});
